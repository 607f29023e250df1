"""One sweep of a recorded run: what `sweep.py` computes, without the command line.

    result, comparison = run_sweep(SweepOptions(run_dir, h_axis, a_axis, ...))

replays the run for every HAS_ANSWER_CUTOFF the grid, the default and the checked point need,
analyses it, optionally asks a human for the verdicts the grid lacks (and analyses again with them),
and compares it with a baseline run. Writing the report is `report.directory`'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..record.rundir import RunRecord
from .analysis import Settings, Sweep, analyse
from .compare import SIGNIFICANCE, Comparison, compare, require_comparable
from .grid import Axis
from .labelling import rejudge, review
from .replay import Replayed, replay_run
from .verdicts import verdicts_path


@dataclass(frozen=True)
class SweepOptions:
    """What to sweep and how. `at` is the point the CI checks and the comparison are about (default:
    the run's default cutoffs)."""

    run: Path
    has_answer: Axis
    answer: Axis
    settings: Settings = Settings()
    questions: Path | None = None
    allow_incomplete: bool = False
    jobs: int = 1
    at: tuple[float, float] | None = None
    baseline: Path | None = None
    significance: float = SIGNIFICANCE  # the baseline comparison's sign test
    strict: bool = False  # fail on any question that got worse instead


def run_sweep(options: SweepOptions, review_quotes: bool = False, ask: Callable[[str], str] | None = None,
              say: Callable[[str], None] = print) -> tuple[Sweep, Comparison | None]:
    """Replay, analyse, review (if asked) and compare; see the module docstring."""
    record = RunRecord.require(options.run)
    default = record.config.default_point
    point = options.at or default
    points = sorted({*options.has_answer.values.tolist(), default[0], point[0]})
    replayed = replay_run(options.run, points, options.questions, options.allow_incomplete, options.jobs, record)
    folds = options.settings.folds
    if folds is not None and folds > len(replayed.questions):
        raise InputError(f"--folds {folds}: only {len(replayed.questions)} question(s) to divide")

    def analysed(judged: Replayed) -> Sweep:
        return analyse(judged, options.has_answer, options.answer, options.settings)

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
        base = replay_run(options.baseline, points, replayed.question_set.path, options.allow_incomplete,
                          options.jobs)
        quick = dataclasses.replace(options.settings, resamples=0, folds=0, max_wrong_rate=None)
        comparison = compare(result, analyse(base, options.has_answer, options.answer, quick), point,
                             options.significance, options.strict)
    return result, comparison
