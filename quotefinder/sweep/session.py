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

from ..core.errors import InputError
from ..record.rundir import RUN_FILE, RunRecord, run_json_digest
from . import drift
from .analysis import FOLDS, Settings, Sweep, analyse
from .compare import SIGNIFICANCE, Comparison, compare, require_comparable
from .drift import Drift
from .grid import Axis, parse_axis
from .labelling import rejudge, review
from .monitor import CautionKind, Monitor, MonitorCaution, watch
from .replay import Coverage, Replayed, judging_path, replay_run, run_system
from .systems import Systems, compare_systems
from .verdicts import verdicts_path


@dataclass(frozen=True)
class SweepOptions:
    """What to sweep and how. `at` is the point the CI checks and the comparison are about (default:
    the run's default cutoffs)."""

    run: Path
    first: Axis | None  # the first axis's grid; None: its default (`grid_axes`)
    second: Axis | None  # the second's
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
    """Each axis's grid: as given, else its default: for a cutoff, the system's `default_grid` (or, without one,
    `recorded_cutoffs`), and for an axis of whole numbers or names the values of it the run recorded (its default
    point's, for a run that lists none)."""
    found = []
    under_test = run_system(record)[0]
    for n, (spec, axis) in enumerate(zip(under_test.axes, given, strict=True)):
        if axis is None and spec.kind == "cutoff":
            grid = under_test.default_grid
            axis = parse_axis(grid) if grid is not None else recorded_cutoffs(record, n)
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
    axes = grid_axes(record, (options.first, options.second))  # (filled by `run_sweep`)
    return {spec.name: tuple(sorted({*axis.values.tolist(), default[n], point[n]}))
            for n, (spec, axis) in enumerate(zip(under_test.axes, axes, strict=True)) if spec.recorded}


def run_sweep(options: SweepOptions, review_quotes: bool = False, ask: Callable[[str], str] | None = None,
              say: Callable[[str], None] = print) -> tuple[Sweep, Comparison | None]:
    """Replay, analyse, review (if asked) and compare; see the module docstring."""
    record = RunRecord.require(options.run)
    h_axis, a_axis = grid_axes(record, (options.first, options.second))
    options = dataclasses.replace(options, first=h_axis, second=a_axis)
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
        quick = dataclasses.replace(options.settings, folds=0, max_wrong_rate=None)
        comparison = compare(result, analyse(base, h_axis, a_axis, quick), point,
                             options.significance, options.strict)
    return result, comparison


def run_drift(options: SweepOptions, original: Path | None = None, max_wrong_rate: float | None = None
              ) -> tuple[Sweep, Drift]:
    """Sweep a refresh (`options.run`) as any run, and compare it with the run it refreshes (`original`, else the
    one its run.json names): the evidence stage by stage, decisions at the shipped cell (`options.at`, else the
    original's recommended cell on the same grid, by the same rule), and the wrong-answer rate there now
    (`drift`). `InputError` when the two cannot be compared."""
    record = RunRecord.require(options.run)
    if original is None:
        if record.refresh is None:
            raise InputError(f"{options.run} is not a refresh (its run.json names no run it refreshes): give the run "
                             "to compare it with, --drift RUN")
        original = record.refresh.origin(options.run)
        if not (Path(original) / RUN_FILE).exists():
            raise InputError(f"{options.run} refreshes {original}, which holds no {RUN_FILE} (moved or removed?): give "
                             "the original run with --drift RUN")
    base = RunRecord.require(original)
    cautions = drift.require_comparable(record, base, options.run, original)
    # the refresh's own sweep certifies nothing: with --drift, --max-wrong-rate is the drift's test of the rate now
    own = dataclasses.replace(options.settings, max_wrong_rate=None)
    result, _ = run_sweep(dataclasses.replace(options, baseline=None, settings=own))
    judging = result.replayed.question_set.path
    if options.at is None:  # the original's recommended cell: its whole sweep, by the same rule on the same grid
        before = run_sweep(dataclasses.replace(options, run=original, questions=judging, baseline=None))[0]
    else:
        default = base.config.default_point
        coverage = needed(base, dataclasses.replace(options, first=result.h_axis, second=result.a_axis),
                          (float(default[0]), float(default[1])), options.at)
        quick = dataclasses.replace(options.settings, folds=0, max_wrong_rate=None)
        replayed = replay_run(original, coverage, judging, options.allow_incomplete, options.jobs, base,
                              use_index=options.use_index, only=record.texts)
        before = analyse(replayed, result.h_axis, result.a_axis, quick)
    point, point_from = drift.shipped_point(options.at, before)
    default = record.config.default_point
    coverage = needed(record, dataclasses.replace(options, first=result.h_axis, second=result.a_axis),
                      (float(default[0]), float(default[1])), point)
    rows_then = {q.question for q in before.questions}
    sampled = [q for q in result.questions if q.question in rows_then]
    m = min(record.repeats, base.repeats)
    stages, tops = drift.evidence(options.run, original, record, sampled, m, coverage)
    questions, m = drift.question_drifts(result, before, point, tops)
    rate = drift.wrong_rate(result, point, record, base, options.settings.delta)
    found = Drift(Path(original), options.run, base, result.replayed.record, point, point_from, stages, questions, m,
                  rate, options.significance, max_wrong_rate, cautions)
    return result, found


def point_axes(record: RunRecord, point: tuple[float, float]) -> tuple[Axis, Axis]:
    """A grid of the one cell `point` (each value exactly, as a float), on the run's system's axes."""
    found = []
    for spec, value in zip(run_system(record)[0].axes, point, strict=True):
        if spec.kind == "cutoff":
            text = repr(float(value))
            found.append(parse_axis(f"{text}:{text}:1", "--at"))
        else:
            found.append(parse_axis(spec.shown(value), "--at", spec))
    return found[0], found[1]


def run_monitor(options: SweepOptions, runs: Sequence[Path], alpha: float,
                say: Callable[[str], None] = print) -> Monitor:
    """The refreshes `runs[1:]` of the run `runs[0]`, each replayed at `options.at` alone and judged with the
    original's question file, watched in the order they began with the confidence sequence of `monitor`.
    `InputError` when --at is missing, a run is given twice, is no refresh of `runs[0]` (named by its path, or by
    the digest of its run.json), cannot be compared with it, or two refreshes were drawn with the same seed."""
    if options.at is None:
        raise InputError("--monitor watches one cell: give it with --at H,A (the cell you ship)")
    original = runs[0]
    base = RunRecord.require(original)
    digest_now = run_json_digest(original)
    given = [(run, RunRecord.require(run)) for run in runs[1:]]
    if not given:
        raise InputError("--monitor RUN REFRESH ...: give the refreshes of RUN after it (eval.py --refresh RUN)")
    seen: dict[Path, Path] = {}
    for run, record in given:
        if (twice := seen.setdefault(run.resolve(), run)) is not run:
            raise InputError(f"{run} is given twice (as {twice} too): each refresh is one observation")
        refresh = record.refresh
        if refresh is None or (refresh.origin(run).resolve() != Path(original).resolve()
                               and refresh.run_json_sha256 != digest_now):
            named = refresh.origin(run) if refresh else "no run"
            raise InputError(f"{run} is not a refresh of {original} (its run.json names {named}): monitor the "
                             f"refreshes of one run, made with `eval.py --refresh {original}`")
        if problems := drift.drift_problems(record, base):
            raise InputError(f"{run} cannot be compared with {original}: " + "; ".join(problems))
    samples: dict[int, list[str]] = {}  # by seed: one seed over a population a question larger or smaller, or with
    for run, record in given:  # another --sample, still draws mostly the same questions
        refresh = record.refresh
        if refresh is not None and refresh.sample < sum(held for _, _, held in refresh.strata):  # (a sample of all
            samples.setdefault(refresh.seed, []).append(str(run))  # is the same whatever the seed)
    if same := next((names for names in samples.values() if len(names) > 1), None):
        raise InputError(f"{' and '.join(same)} were drawn with the same --seed, so they share most of their "
                         "questions and are not fresh samples: keep one, and give each refresh its own --seed")
    cautions = []
    digests = {record.refresh.run_json_sha256 for _, record in given if record.refresh is not None}
    if digests != {digest_now}:
        cautions.append(MonitorCaution(CautionKind.ORIGINAL_CHANGED, str(original)))
    ordered = sorted(given, key=lambda pair: (pair[1].refresh.began if pair[1].refresh else "") or pair[1].started_at)
    judging = judging_path(original, base, options.questions)
    h_axis, a_axis = point_axes(base, options.at)
    quick = dataclasses.replace(options.settings, folds=0, max_wrong_rate=None)
    found = []
    evidence = set()
    for run, record in ordered:
        say(f"Replaying {run} at the shipped cell ...")
        result = run_sweep(dataclasses.replace(options, run=run, first=h_axis, second=a_axis, settings=quick,
                                               questions=judging, baseline=None))[0]
        evidence.add(result.replayed.record.evidence_word)
        began = (record.refresh.began if record.refresh else "") or record.started_at
        estimate, unsampled = drift.weighted_estimate(result, options.at, record, base)
        if result.replayed.unjudged_in_run:
            cautions.append(MonitorCaution(CautionKind.QUESTIONS_GONE, str(run), count=result.replayed.unjudged_in_run,
                                           where=str(judging)))
        elif unsampled:
            cautions.append(MonitorCaution(CautionKind.LABEL_UNSAMPLED, str(run), labels=tuple(unsampled)))
        found.append((str(run), began, len(result.questions), estimate))
    return watch(str(original), options.at, alpha, options.settings.delta, found, "/".join(sorted(evidence)),
                 reordered=[run for run, _ in ordered] != [run for run, _ in given], cautions=cautions,
                 options=options.settings.options)


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
            chosen = dataclasses.replace(chosen, first=None, second=None)
        sweeps.append(run_sweep(chosen)[0])
    folds = options.settings.folds if options.settings.folds not in (None, 0) else FOLDS
    return sweeps, compare_systems(sweeps, [str(run) for run in runs], folds, options.settings.seed,
                                   significance=options.significance)

