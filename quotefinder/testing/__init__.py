"""Test tools, never imported by the product: the stand-in API server (`python -m
quotefinder.testing.standin`), synthetic question sets of any size, and the benchmark (`python -m
quotefinder.testing.bench`)."""
