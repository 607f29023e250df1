"""Systems under test: what every system hands on (`Curve`), what it is asked for (`System`), and which
systems exist (`system`).

A system turns one question into API requests and a decision (quote a text, or say there is no answer)
that depends on two cutoffs, its axes. Recording and replay drive its `steps` (a generator that yields
request batches, receives their responses and returns a trace; no I/O). Everything after replay reads
only each question's `Curve`: the decision as a function of both cutoffs, made once per question and
repeat from its trace. The grid, the statistics, the page and the comparisons read curves, never a
trace, so a new system is a new plugin and nothing else.

A curve is a partition of the plane of cutoffs (x on the first axis, y on the second) into pieces.
`edges` split x into segments: segment k holds the x with exactly k edges below x (``edge < x``), so a
value equal to an edge falls in the lower segment. Within segment k, `bounds[k]` split y the same way into
pieces, and `pieces[k][j]` is what the system does there. That one rule (`values_below`) is how every
reader finds the piece of a point, and it is how a system says ``probability >= cutoff`` passes: an edge
or a bound is the largest cutoff that still passes.
"""

from __future__ import annotations

import bisect
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

DEFAULT_SYSTEM = "quote-finder"


@dataclass(frozen=True)
class AxisSpec:
    """One cutoff a system takes: its name (`--grid NAME=...`, `--range NAME=...`), its title (axis labels,
    e.g. HAS_ANSWER_CUTOFF), the default value, the words that say what it does, the older flag that still
    names it (``--has-answer``; empty when none), and `removes_quotes`: whether raising it can only take
    quotes away (never add one, never change one), which the guarantee's testing order relies on."""

    name: str
    title: str
    default: float
    words: str
    flag: str = ""
    removes_quotes: bool = False
    recorded: bool = True  # whether a recording must cover its values (`eval.py --range`)


@dataclass(frozen=True)
class Quote:
    """A text a system may quote, with where it comes from and the number it was judged on, named (the quote
    finder's compare probability, `answers`; or, for the closest candidate when nothing was compared, its
    `has_answer`)."""

    text: str
    title: str
    url: str
    date: str | None
    score: float | None = None
    score_name: str = ""

    @property
    def source(self) -> str:
        """Where it comes from: title, URL, date (the ones it has)."""
        return ", ".join(part for part in (self.title, self.url, self.date) if part)


@dataclass(frozen=True)
class Piece:
    """What a system does in one piece of the plane: `quoted` (a `Quote`) or the no-answer line (None), with
    what it shows beside the no-answer line (`shown`: the closest candidate; None when there is none). A
    piece the recording never asked for (`missing`) is an error wherever a grid cell falls in it."""

    quoted: Quote | None
    shown: Quote | None = None
    missing: bool = False

    @property
    def text(self) -> str | None:
        """The text judged: the quote, or None for the no-answer line."""
        return self.quoted.text if self.quoted is not None else None

    @property
    def display(self) -> Quote | None:
        """What a reader sees: the quote, else the closest candidate shown beside the no-answer line."""
        return self.quoted if self.quoted is not None else self.shown


MISSING = Piece(None, missing=True)


def values_below(values: Sequence[float], x: float) -> int:
    """How many of the ascending `values` are below `x` (``value < x``): the index of the segment or piece
    `x` falls in. A value equal to `x` is not below it."""
    return bisect.bisect_left(values, x)


def cells_through(axis: np.ndarray, limits: Any) -> Any:
    """For each of `limits` (an edge or a bound), how many values of the ascending grid `axis` lie at or below
    it: the first grid index of the segment or piece above it. `values_below` for a whole axis at once (a grid
    value equal to a limit stays below it), elementwise over an array of limits."""
    return np.searchsorted(axis, limits, side="right")


@dataclass(frozen=True)
class Curve:
    """One question's decision, in one repeat, over both axes (see the module docstring).

    `edges` ascending; `bounds[k]` ascending for each of the len(edges) + 1 segments; `pieces[k]` has
    len(bounds[k]) + 1 pieces. Plain tuples, so that a curve pickles small from a replay worker.
    """

    edges: tuple[float, ...]
    bounds: tuple[tuple[float, ...], ...]
    pieces: tuple[tuple[Piece, ...], ...]

    def __post_init__(self) -> None:
        if len(self.bounds) != len(self.edges) + 1 or len(self.pieces) != len(self.bounds):
            raise ValueError("a curve needs one segment more than it has edges, each with its bounds and pieces")
        if any(len(p) != len(b) + 1 for b, p in zip(self.bounds, self.pieces, strict=True)):
            raise ValueError("a segment needs one piece more than it has bounds")

    def segment(self, x: float) -> int:
        return values_below(self.edges, x)

    def at(self, x: float, y: float) -> Piece:
        """The piece the point (x, y) falls in: what the system does with those cutoffs."""
        k = self.segment(x)
        return self.pieces[k][values_below(self.bounds[k], y)]

    def each_piece(self) -> list[Piece]:
        return [piece for segment in self.pieces for piece in segment]


Steps = Generator[list[Any], list[Any], Any]


class System(Protocol):
    """A system under test, as the harness asks it things. `config` is the system's resolved pipeline (its own
    frozen dataclass, recorded in run.json); `coverage` maps an axis name to the values a recording must
    cover ((lo, hi) spans and single points)."""

    name: str
    axes: tuple[AxisSpec, AxisSpec]
    default: Any  # its default pipeline (the recipe's, for the quote finder)
    quote_score: str  # the name of the number a quote is chosen on (`Quote.score_name`), shown bare beside it

    def steps(self, question: str, config: Any, coverage: Mapping[str, Sequence[Any]], repeat: int = 0) -> Steps:
        """The question's request flow: yields request batches, receives responses, returns its trace."""
        ...

    def decide(self, trace: Any, x: float, y: float) -> Piece:
        """What the system does for this trace at one point: the rule itself, applied directly."""
        ...

    def curve(self, trace: Any) -> Curve:
        """The trace's decision over both axes; `curve(t).at(x, y)` equals `decide(t, x, y)` everywhere."""
        ...


def _registry() -> dict[str, System]:
    from ..recipe.system import QUOTE_FINDER  # the plugins import this module: looked up when asked for

    return {QUOTE_FINDER.name: QUOTE_FINDER}


def known_systems() -> tuple[str, ...]:
    """The names of the systems, the default first."""
    return tuple(_registry())


def system(name: str = DEFAULT_SYSTEM) -> System:
    """The system of that name; `KeyError` naming the known ones otherwise."""
    known = _registry()
    if name not in known:
        raise KeyError(f"unknown system {name!r}; the systems are: {', '.join(known)}")
    return known[name]


def axis_spec(chosen: System, name: str) -> AxisSpec:
    """One of a system's axes by its name; `KeyError` naming its axes otherwise."""
    for spec in chosen.axes:
        if spec.name == name:
            return spec
    raise KeyError(f"{chosen.name} has no axis {name!r}; its axes are: {', '.join(s.name for s in chosen.axes)}")
