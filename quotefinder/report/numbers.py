"""How numbers are written in what people read, rounded in the direction that never overstates a claim:
an upper bound is rounded up, a confidence down, an interval outwards."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.plugin import AxisSpec


def plain_number(value: float) -> float | int:
    """An integer when it is one, else rounded to 4 decimals (means over repeats)."""
    return int(value) if float(value).is_integer() else round(float(value), 4)


def _percent(value: float, up: bool, digits: int = 3) -> str:
    """`value` as a percentage to `digits` significant figures, rounded up or down (never to nearest)."""
    percent = value * 100
    if abs(percent) < 1e-9:  # floating-point dust (a Wilson bound at 0 successes), not a rate
        return "0%"
    if not math.isfinite(percent):
        return f"{percent:g}%"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(percent))))
    scale = 10**decimals
    rounded = (math.ceil if up else math.floor)(round(percent * scale, 9)) / scale
    text = f"{rounded:.{decimals}f}"
    return (text.rstrip("0").rstrip(".") if decimals else text) + "%"


def at_most(value: float) -> str:
    """A rate that is an upper bound or a limit: rounded up, so 40.32% reads 40.4%, never 40%."""
    return _percent(value, up=True)


def at_least(value: float) -> str:
    """A rate that is a lower bound: rounded down, so 60.97% reads 60.9%, never 61%."""
    return _percent(value, up=False)


def confidence(delta: float) -> str:
    """1 - delta as a percentage, rounded down, and never shown as 100% (or 0%) when it is not."""
    text = at_least(1 - delta)
    if text == "100%" and delta > 0:
        return "99.9%+"
    return text


def share(value: float) -> str:
    """A proportion that is neither bound nor limit, to the nearest percent: 66%."""
    return f"{value:.0%}"


def p_value(value: float | None) -> str:
    """A p-value as people read it: '0.042' (two significant figures), '< 0.001' for the small ones (no test here
    is more exact than that), '1' at the cap, '-' when there is none (a table's empty cell)."""
    if value is None:
        return "-"
    return "< 0.001" if value < 0.001 else f"{min(float(value), 1.0):.2g}"


def p_words(value: float | None) -> str:
    """'p = 0.042', or 'p < 0.001' for the small ones (`p_value`)."""
    shown = p_value(value)
    return f"p {shown}" if shown.startswith("<") else f"p = {shown}"


def point_words(axes: Sequence[AxisSpec], point: Sequence[float]) -> str:
    """'(0.3, 0.6)', '(5, instant)': a point of a system's plane, each value as its axis writes it."""
    return "(" + ", ".join(spec.shown(value) for spec, value in zip(axes, point, strict=True)) + ")"


def titled_point_words(axes: Sequence[AxisSpec], point: Sequence[float]) -> str:
    """The same point with each axis named by its title: 'HAS_ANSWER_CUTOFF 0.3, ANSWER_CUTOFF 0.6', 'passages 5,
    tier instant'."""
    return ", ".join(f"{spec.title} {spec.shown(value)}" for spec, value in zip(axes, point, strict=True))
