"""Test tools, never imported by the product: the stand-in API server (`python -m
quotefinder.testing.standin`), synthetic question sets of any size and the SQuAD scenario builder. The benchmarks
live beside the package, in `benchmarks/` (`python -m benchmarks.bench`)."""
