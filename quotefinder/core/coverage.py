"""Which values of a cutoff axis a recording must cover (`Coverage`), and so which of a question's distinct
scores need responses: a cutoff axis's decision changes only at the scores it compares against.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class Coverage:
    """The values of a cutoff axis (a score passes when score >= cutoff) whose selections need responses: the
    quote finder's HAS_ANSWER_CUTOFF over has_answer, the one-shot pipeline's min_relevance over relevance.

    `span` is an inclusive range (lo, hi) or None; `points` are single values (the default cutoff,
    or a sweep's grid). What a cutoff selects changes only at a question's distinct scores, so a question
    needs at most one response per distinct score, and only for the scores some covered cutoff selects
    (`thresholds`).
    """

    span: tuple[float, float] | None = (0.0, 1.0)
    points: tuple[float, ...] = ()

    @cached_property
    def _sorted_points(self) -> list[float]:
        return sorted(self.points)

    def selects(self, lower: float, upper: float) -> bool:
        """Whether some cutoff this coverage holds lies in (lower, upper]."""
        if self.span is not None and self.span[0] <= upper and self.span[1] > lower:
            return True
        after = bisect.bisect_right(self._sorted_points, lower)
        return after < len(self._sorted_points) and self._sorted_points[after] <= upper

    def thresholds(self, scores: Iterable[float]) -> list[float]:
        """The scores whose selections this coverage needs.

        Every cutoff c in (v_prev, v], between two consecutive distinct scores, selects the same items
        as v itself: those whose score >= v. So v is needed when a covered cutoff lies in that interval.
        """
        needed, lower = [], float("-inf")
        for value in sorted(set(scores)):
            if self.selects(lower, value):
                needed.append(value)
            lower = value
        return needed
