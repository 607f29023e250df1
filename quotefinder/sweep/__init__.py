"""The run over the grid: replaying a recorded run from its cache, the exact cutoff grid, the
recommended cell and how sure it is, comparison with a baseline, and human verdicts. Offline."""
