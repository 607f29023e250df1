"""One sweep of a recorded run: what `sweep.py` computes, without the command line.

    result, comparison = run_sweep(SweepOptions(run_dir, h_axis, a_axis, ...))

replays the run for every HAS_ANSWER_CUTOFF the grid, the default and the checked point need,
analyses it, optionally asks a human for the verdicts the grid lacks (and analyses again with them),
and compares it with a baseline run. Writing the report is `report.directory`'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from ..errors import InputError
from ..record.rundir import RunRecord
from .analysis import FOLDS, Settings, Sweep, analyse
from .compare import SIGNIFICANCE, Comparison, compare, require_comparable
from .grid import Axis, parse_axis
from .labelling import rejudge, review
from .replay import Coverage, Replayed, replay_run, run_system
from .systems import Systems, compare_systems
from .verdicts import verdicts_path


@dataclass(frozen=True)
class SweepOptions:
    """What to sweep and how. `at` is the point the CI checks and the comparison are about (default:
    the run's default cutoffs)."""

    run: Path
    has_answer: Axis | None  # the first axis's grid; None: its default (`grid_axes`)
    answer: Axis | None  # the second's
    settings: Settings = Settings()
    questions: Path | None = None
    allow_incomplete: bool = False
    jobs: int = 1
    at: tuple[float, float] | None = None
    baseline: Path | None = None
    significance: float = SIGNIFICANCE  # the baseline comparison's sign test
    strict: bool = False  # fail on any question that got worse instead
    use_index: bool = True  # read and write the run's replay index (`sweep.index`): the same results, faster


DEFAULT_GRID = "0:1:0.05"  # a cutoff's grid when none is given


def grid_axes(record: RunRecord, given: tuple[Axis | None, Axis | None]) -> tuple[Axis, Axis]:
    """Each axis's grid: as given, else its default: `DEFAULT_GRID` for a cutoff, and for an axis of whole numbers
    or names the values of it the run recorded (its default point's, for a run that lists none)."""
    found = []
    for n, (spec, axis) in enumerate(zip(run_system(record)[0].axes, given, strict=True)):
        if axis is None and spec.kind == "cutoff":
            axis = parse_axis(DEFAULT_GRID) if record.config.is_quote_finder else recorded_cutoffs(record, n)
        elif axis is None:
            values = record.config.covered.get(spec.name) or (record.config.default_point[n],)
            axis = parse_axis(",".join(spec.shown(v) for v in values), f"the {spec.name} values recorded", spec)
        found.append(axis)
    return found[0], found[1]


def recorded_cutoffs(record: RunRecord, n: int) -> Axis:
    """The default grid of another system's cutoff axis: `DEFAULT_GRID`'s values inside the spans the run
    recorded (their ends included), and the single values it recorded (its default point's, for a run that
    lists none)."""
    spec = run_system(record)[0].axes[n]
    items = record.config.covered.get(spec.name) or (record.config.default_point[n],)
    step = parse_axis(DEFAULT_GRID).decimals
    values: set[Decimal] = set()
    for item in items:
        if isinstance(item, tuple):
            lo, hi = (Decimal(repr(v)) for v in item)
            values.update({lo, hi, *(d for d in step if lo <= d <= hi)})
        else:
            values.add(Decimal(repr(float(item))))
    decimals = tuple(sorted(values))
    return Axis(",".join(format(d.normalize(), "f") for d in decimals), decimals)


def needed(record: RunRecord, options: SweepOptions, default: tuple[float, float], point: tuple[float, float]
           ) -> Coverage:
    """The values of each recorded axis the sweep needs responses for: the grid's, the default's and the
    checked point's."""
    under_test, _ = run_system(record)
    axes = grid_axes(record, (options.has_answer, options.answer))  # (filled by `run_sweep`)
    return {spec.name: tuple(sorted({*axis.values.tolist(), default[n], point[n]}))
            for n, (spec, axis) in enumerate(zip(under_test.axes, axes, strict=True)) if spec.recorded}


def run_sweep(options: SweepOptions, review_quotes: bool = False, ask: Callable[[str], str] | None = None,
              say: Callable[[str], None] = print) -> tuple[Sweep, Comparison | None]:
    """Replay, analyse, review (if asked) and compare; see the module docstring."""
    record = RunRecord.require(options.run)
    h_axis, a_axis = grid_axes(record, (options.has_answer, options.answer))
    options = dataclasses.replace(options, has_answer=h_axis, answer=a_axis)
    default = record.config.default_point
    point = options.at or default
    coverage = needed(record, options, (float(default[0]), float(default[1])), point)
    replayed = replay_run(options.run, coverage, options.questions, options.allow_incomplete, options.jobs, record,
                          use_index=options.use_index)
    folds = options.settings.folds
    if folds is not None and folds > len(replayed.questions):
        raise InputError(f"--folds {folds}: only {len(replayed.questions)} question(s) to divide")

    def analysed(judged: Replayed) -> Sweep:
        return analyse(judged, h_axis, a_axis, options.settings)

    result = analysed(replayed)
    if review_quotes:
        pending = result.labels_needed
        path = verdicts_path(replayed.question_set.path)
        quotes = sum(len(item.quotes) for item in pending if item.question.expect == "answer" or item.missing_expect)
        say(f"{len(pending)} question(s) on the grid need a label or a verdict ({quotes} quote(s) among them); "
            f"answers are saved in {path} as you give them.")
        if pending and review(pending, path, replayed.question_set, ask, say):
            result = analysed(rejudge(replayed))
    comparison = None
    if options.baseline is not None:
        require_comparable(record, RunRecord.require(options.baseline), options.run, options.baseline)  # before replay
        # judged with the run's question file and verdicts: between the two, only the evidence differs
        base = replay_run(options.baseline, coverage, replayed.question_set.path, options.allow_incomplete,
                          options.jobs, use_index=options.use_index)
        quick = dataclasses.replace(options.settings, resamples=0, folds=0, max_wrong_rate=None)
        comparison = compare(result, analyse(base, h_axis, a_axis, quick), point,
                             options.significance, options.strict)
    return result, comparison


def run_systems(runs: Sequence[Path], options: SweepOptions, say: Callable[[str], None] = print
                ) -> tuple[list[Sweep], Systems]:
    """Sweep each run (each its own system or pipeline, on one question set) with the same options, each tuned
    by its own rule, then compare them on cross-validated scores (`systems.compare_systems`). The grid given is
    the first run's system's: a run of another system is swept over its own default grid (`grid_axes`)."""
    systems = [RunRecord.require(run).config.system for run in runs]  # every run readable before any is swept
    sweeps: list[Sweep] = []
    for run, name in zip(runs, systems, strict=True):
        say(f"Sweeping {run} ...")
        # judged with the first run's question file and verdicts (as --baseline is): only the systems differ
        questions = options.questions or (sweeps[0].replayed.question_set.path if sweeps else None)
        chosen = dataclasses.replace(options, run=run, questions=questions)
        if name != systems[0]:
            chosen = dataclasses.replace(chosen, has_answer=None, answer=None)
        sweeps.append(run_sweep(chosen)[0])
    folds = options.settings.folds if options.settings.folds not in (None, 0) else FOLDS
    return sweeps, compare_systems(sweeps, [str(run) for run in runs], folds, options.settings.seed,
                                   significance=options.significance)

