"""Benchmarks, never imported by the product: `python -m quotefinder.testing.bench` and the tools the parts of
BENCHMARKS.md name. The stand-in API and its scenario tools are `quotefinder.standin`."""
