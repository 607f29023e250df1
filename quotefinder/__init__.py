"""quotefinder-eval: record a quote-finding pipeline's API responses once, then tune its cutoffs offline."""

__version__ = "0.1.0"
