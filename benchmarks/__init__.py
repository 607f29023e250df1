"""The benchmarks behind BENCHMARKS.md, run from the repository's root (`python -m benchmarks.bench`): tools for
measuring the product, never installed with it (`pyproject.toml` packages `quotefinder` only) and never imported
by it."""
