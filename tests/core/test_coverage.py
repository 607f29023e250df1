"""Which of a question's scores need responses (`Coverage.thresholds`): held to a slow loop over every cutoff of
a fine grid, since a cutoff c selects the scores >= c, and a score is needed when some covered cutoff selects
exactly the set it selects."""

from __future__ import annotations

import random

from quotefinder.core.coverage import Coverage


def slow_thresholds(coverage: Coverage, scores: list[float], cutoffs: list[float]) -> list[float]:
    """For every covered cutoff, the smallest score it passes (score >= cutoff): that score's selection."""
    needed = set()
    for cutoff in cutoffs:
        covered = (coverage.span is not None and coverage.span[0] <= cutoff <= coverage.span[1]) or (
            cutoff in coverage.points)
        passing = [s for s in scores if s >= cutoff]
        if covered and passing:
            needed.add(min(passing))
    return sorted(needed)


def test_thresholds_are_the_slow_loops_over_every_cutoff() -> None:
    rng = random.Random(11)
    grid = [k / 100 for k in range(101)]
    for _ in range(300):
        scores = [rng.choice(grid) for _ in range(rng.randint(1, 8))]
        lo = rng.choice(grid)
        span = rng.choice([None, (lo, rng.choice([g for g in grid if g >= lo]))])
        points = tuple(rng.sample(grid, rng.randint(0, 3)))
        coverage = Coverage(span, points)
        assert coverage.thresholds(scores) == slow_thresholds(coverage, scores, grid), (span, points, scores)


def test_the_whole_range_needs_every_distinct_score_and_one_point_one() -> None:
    assert Coverage().thresholds([0.2, 0.9, 0.2, 0.5]) == [0.2, 0.5, 0.9]
    assert Coverage(None, (0.6,)).thresholds([0.2, 0.5, 0.9]) == [0.9]  # 0.6 passes 0.9 alone
    assert Coverage(None, (0.5,)).thresholds([0.2, 0.5, 0.9]) == [0.5]  # a score equal to a cutoff passes it
    assert Coverage(None, (0.95,)).thresholds([0.2, 0.5, 0.9]) == []  # passes nothing: no response needed
    assert Coverage(None, ()).thresholds([0.3]) == []
