"""The pipeline under test, as pure functions of plain data: the API contract (request bodies and
response readers), the sentence splitter, the request flow of one question, and the decision rule.
No I/O here: recording drives the flow over HTTP, the sweep drives it from the cache."""
