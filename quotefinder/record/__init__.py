"""Recording: the HTTP client, the response cache in front of it, the recorder that drives the
pipeline over both, and the run directory's typed record (run.json). Every response is saved before
it is used, so nothing is paid for twice."""
