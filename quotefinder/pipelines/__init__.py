"""`python -m quotefinder.pipelines show [SYSTEM]`: a system's default pipeline file (see `core.pipelinefile`)."""
