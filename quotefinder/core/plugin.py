"""The plugin protocol: what every system under test hands on (`Curve`) and what it is asked for (`System`);
`registry` says which systems exist.

A system turns one question into API requests and a decision (quote a text, or say there is no answer)
that depends on two cutoffs, its axes. Recording and replay drive its `steps` (a generator that yields
request batches, receives their responses and returns a trace; no I/O). Everything after replay reads
only each question's `Curve`: the decision as a function of both cutoffs, made once per question and
repeat from its trace. The grid, the statistics, the page and the comparisons read curves, never a
trace, so a new system is a new plugin and nothing else.

An axis (`AxisSpec`) is a cutoff (a probability in [0, 1]), a whole number (`whole`) or a choice among names
(`choices`, held in the plane as their positions 0, 1, ...): the quote finder's are cutoffs, the quote-answer
API's a number of passages and a tier.

A curve is a partition of the plane of cutoffs (x on the first axis, y on the second) into pieces.
`edges` split x into segments: segment k holds the x with exactly k edges below x (``edge < x``), so a
value equal to an edge falls in the lower segment. Within segment k, `bounds[k]` split y the same way into
pieces, and `pieces[k][j]` is what the system does there. That one rule (`values_below`) is how every
reader finds the piece of a point, and it is how a system says ``probability >= cutoff`` passes: an edge
or a bound is the largest cutoff that still passes.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np


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
    choices: tuple[str, ...] = ()  # a categorical axis: its values in order; the plane holds their positions 0, 1, ...
    whole: tuple[int, int] | None = None  # an axis of whole numbers: the least and the greatest
    column: str = ""  # its column in grid.csv (default: its name)

    @property
    def kind(self) -> str:
        """'choice' (named values), 'count' (whole numbers) or 'cutoff' (a probability in [0, 1])."""
        return "choice" if self.choices else "count" if self.whole is not None else "cutoff"

    @property
    def heading(self) -> str:
        """Its column in grid.csv, decision.json and the tables."""
        return self.column or self.name

    def written(self, value: float) -> str | int | float:
        """A value of this axis as run.json and decision.json hold it: a choice's name, a whole number, a cutoff."""
        if self.choices:
            return self.choices[int(value)]
        return int(value) if self.whole is not None else float(value)

    def read(self, value: Any) -> float:
        """`written`'s inverse, as the plane holds it; `ValueError` for a value the axis does not have."""
        if self.choices:
            if value not in self.choices:
                raise ValueError(f"{value!r} is not one of {', '.join(self.choices)}")
            return float(self.choices.index(value))
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{value!r} is not a number")
        if self.whole is not None and (value != int(value) or not self.whole[0] <= value <= self.whole[1]):
            raise ValueError(f"{value!r} is not a whole number from {self.whole[0]} to {self.whole[1]}")
        if self.whole is None and not 0 <= value <= 1:
            raise ValueError(f"{value!r} is not a cutoff in [0, 1]")
        return float(value)

    def listed(self, text: str) -> tuple[float, ...]:
        """The values an axis of whole numbers or names lists (`--range NAME=...`, `--grid NAME=...`), ascending,
        each once, as the plane holds them: 'instant,deep'; '1:12', '1:12:2' or '2,4,8'. `ValueError` saying
        what the axis takes."""
        if self.choices:
            names = [part.strip() for part in text.split(",")]
            unknown = [name for name in names if name not in self.choices]
            if unknown:
                raise ValueError(f"{self.name} takes {', '.join(self.choices)} (a list, e.g. "
                                 f"{','.join(self.choices[:2])}); not {', '.join(map(repr, unknown))}")
            return tuple(sorted({float(self.choices.index(name)) for name in names}))
        lo, hi = self.whole or (0, 0)
        try:
            if ":" in text:
                parts = [int(part) for part in text.split(":")]
                if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] < 1) or parts[0] > parts[1]:
                    raise ValueError
                found = list(range(parts[0], parts[1] + 1, parts[2] if len(parts) == 3 else 1))
            else:
                found = [int(part) for part in text.split(",")]
        except ValueError:
            raise ValueError(f"{self.name} takes whole numbers START:STOP[:STEP] or a list, e.g. {lo}:{hi} or "
                             f"{lo},{(lo + hi) // 2},{hi}") from None
        if not all(lo <= value <= hi for value in found):
            raise ValueError(f"{self.name} goes from {lo} to {hi}")
        return tuple(float(v) for v in sorted(set(found)))

    def covered(self, items: Sequence[Any]) -> list[int]:
        """The whole values (or a choice's positions) a coverage of this axis holds, ascending: every one inside
        a (lo, hi) span, and each single value on the axis."""
        lo, hi = self.whole if self.whole is not None else (0, len(self.choices) - 1)
        found: set[int] = set()
        for item in items:
            if isinstance(item, tuple):
                found.update(range(max(lo, math.ceil(item[0])), min(hi, math.floor(item[1])) + 1))
            elif float(item).is_integer() and lo <= item <= hi:
                found.add(int(item))
        return sorted(found)

    def shown(self, value: float) -> str:
        """A value of this axis as a person writes it: a choice's name, a whole number, a cutoff's decimal."""
        if self.choices:
            return self.choices[int(value)]
        return f"{int(value)}" if self.whole is not None else f"{value:g}"


@dataclass(frozen=True)
class ApiSpec:
    """An HTTP API a system sends to: its name in messages, the variables holding its base URL and key (the
    key never stored or printed, sent only as a bearer token), and its default base URL ('' when it has none:
    the variable must be set)."""

    name: str
    base_variable: str
    key_variable: str
    default_base: str


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
    passages: tuple[str, ...] = ()  # a quote made of several verbatim passages: judged correct when one is
    broken: str = ""  # why the quote is wrong whatever it says (the one-shot answer citing a source not kept)

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


@dataclass(frozen=True)
class Reading:
    """What one checked response says, as a refresh compares it with the response the original run holds for the
    same request (`System.readings`): its stage (what the request is for, in a report's words), its answer (compared
    for equality: the results, the sentence chosen, the candidate preferred), the probabilities it gives (compared
    pair by pair, in request order, named by `probability`), and, for the response that finds the sources, the
    top one (`top`, its URL)."""

    stage: str
    answer: Any
    probabilities: tuple[float, ...] = ()
    probability: str = ""
    top: str | None = None


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


@dataclass(frozen=True)
class Legacy:
    """The config keys a system's run.json has carried since before systems existed (the quote finder's), read
    and written as they always were so that committed runs stay byte-identical: `keys`, every one in the file's
    order (each before `system`); of them, the pipeline's values held flat (`flat`: for a run.json without a
    pipeline, overrides of the system's default pipeline), the default point (`point`: one key per axis) and the
    first axis's recorded span [lo, hi] (`span`), which such a run keeps instead of `ranges`."""

    keys: tuple[str, ...]
    flat: tuple[str, ...]
    point: tuple[str, str]
    span: str


class Trace(Protocol):
    """What recording reads of any system's trace (what `System.steps` returns; the rest is the system's own): the
    requests the question took, the input tokens they reported, and how many results its decision chose among."""

    requests: int
    input_tokens: int
    result_count: int


Steps = Generator[list[Any], list[Any], Any]


class System(Protocol):
    """A system under test, as the harness asks it things. `config` is the system's resolved pipeline (its own
    frozen dataclass, recorded in run.json); `coverage` maps an axis name to the values a recording must
    cover ((lo, hi) spans and single points)."""

    name: str
    axes: tuple[AxisSpec, AxisSpec]
    default: Any  # its default pipeline (the recipe's, for the quote finder)
    pipeline_type: Any  # its pipeline's class: `parse` (a pipeline file) and `from_json` (run.json's copy)
    quote_score: str  # the name of the number a quote is chosen on (`Quote.score_name`), shown bare beside it
    apis: tuple[ApiSpec, ...]  # the APIs its requests go to
    settings: str  # what its points are, in a report's words: "cutoffs" (the quote finder), "settings"
    comments: Mapping[tuple[str, ...], str]  # a default pipeline file's comment above each key (by its path)
    default_words: str  # what its default pipeline is, said beside it ("the recipe's"; "" for nothing)
    legacy: Legacy | None  # the run.json keys its runs have always had (None: `ranges` and nothing else)
    default_grid: str | None  # each cutoff axis's sweep grid when none is given, START:STOP:STEP; None: the
    # values its run recorded
    no_answer_words: str  # what its no-answer line says, printed under eval.py's decisions ('' for nothing)
    help_text: str  # how its axes work together, for --help, before each axis's own line ('' for nothing more)

    def worst_words(self, config: Any) -> str:
        """At most how many requests one question not yet started needs, in words, as eval.py --estimate says it
        ('one not yet searched needs at most 1 search, 5 rank and 5 compare requests')."""
        ...

    def described(self, config: Any) -> str:
        """What a pipeline is beside its name and digest in a report ('model sonar, 5 search results'; '' when
        run.json alone says it)."""
        ...

    def default_point(self, config: Any) -> tuple[float, float]:
        """The pipeline's own point on both axes: where eval.py shows the decisions, and the sweep's default."""
        ...

    def check(self, request: Any, data: Any) -> None:
        """Raise `ContractError` unless `data`, the response to `request`, holds everything the system reads."""
        ...

    def input_tokens(self, request: Any, data: Any) -> int:
        """The input tokens a checked response reports (0 when its API reports none)."""
        ...

    def bound(self, config: Any, coverage: Mapping[str, Sequence[Any]], batch: Sequence[Any], missing: int,
              first: bool) -> int:
        """At most how many requests recording can still send for a question whose request batch `batch` (the
        first of its flow when `first`) lacks `missing` responses: those, and the worst case of what follows."""
        ...

    def expected(self, config: Any, coverage: Mapping[str, Sequence[Any]]) -> tuple[float, float, str]:
        """Before anything is recorded: the requests one question is expected to take, the input tokens each of
        them after its first is expected to take (the quote finder's Decisions requests; its search reports none),
        and the words saying where that expectation comes from."""
        ...

    def steps(self, question: str, config: Any, coverage: Mapping[str, Sequence[Any]], repeat: int = 0) -> Steps:
        """The question's request flow: yields request batches, receives responses, returns its trace (a `Trace`)."""
        ...

    def decide(self, trace: Any, x: float, y: float) -> Piece:
        """What the system does for this trace at one point: the rule itself, applied directly."""
        ...

    def curve(self, trace: Any) -> Curve:
        """The trace's decision over both axes; `curve(t).at(x, y)` equals `decide(t, x, y)` everywhere."""
        ...

    def readings(self, request: Any, data: Any) -> list[Reading]:
        """What a checked response to `request` says, stage by stage (`Reading`): what a refresh compares."""
        ...


class Unadorned:
    """The `System` attributes of a system with nothing to add to them, for a plugin to inherit so that it declares
    only what it has: no score shown beside a quote, points called settings, no words beside its default pipeline,
    no run.json keys of its own, a sweep's grid what its run recorded, no help beyond each axis's line, and nothing
    to describe a pipeline by beyond its name and digest."""

    quote_score = ""
    settings = "settings"
    default_words = ""
    legacy: Legacy | None = None
    default_grid: str | None = None
    help_text = ""

    def described(self, config: Any) -> str:
        return ""
