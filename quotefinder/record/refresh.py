"""A refresh: a seeded sample of a recorded run's questions, recorded afresh into a run of its own.

    plan = plan_refresh(original_dir, new_dir, size, seed)   # what to record, and how run.json says it
    Recording.open(plan.questions.path, new_dir, plan.options, questions=plan.questions, refresh=plan.refresh)

The sample is stratified by label: each label (answer, no-answer, unlabelled) gets its share of `size` in
proportion to how many of the original's questions carry it (largest remainders, ties in that order), and
within a label the questions are drawn uniformly without replacement with `numpy.random.default_rng(seed)`. The
population is the original's recorded questions that the question file still lists, labelled as the file labels
them now (as judging does). The refresh records with the original's pipeline, repeats and coverage, into its own
directory and cache, so no response of the original is ever served to it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from ..core.errors import InputError, RunDirError
from ..questions import Question, QuestionSet, load_questions
from .advice import finish
from .rundir import RUN_FILE, Refresh, RunRecord, run_json_digest
from .session import RecordOptions

STRATA = ("answer", "no-answer", "")  # the labels a sample is stratified by ('' unlabelled), in this order


def label_of(question: Question) -> str:
    return question.expect or ""


def allocation(sizes: Sequence[int], total: int) -> list[int]:
    """`total` shared among strata of `sizes` in proportion (largest remainders; ties to the earlier stratum), never
    more than a stratum holds, and at least one each when `total` allows: a label left out of a sample would leave
    its questions out of every estimate of the mix."""
    held = sum(sizes)
    if not 0 < total <= held:
        raise ValueError(f"a sample of {total} from {held}")
    exact = [total * size / held for size in sizes]
    taken = [int(share) for share in exact]
    order = sorted(range(len(sizes)), key=lambda n: (-(exact[n] - taken[n]), n))
    for n in order[: total - sum(taken)]:
        taken[n] += 1
    if total >= len(sizes):
        for n in range(len(sizes)):
            if taken[n] == 0:  # taken from the stratum furthest above its share that keeps one
                donor = max((m for m in range(len(sizes)) if taken[m] > 1), key=lambda m: (taken[m] - exact[m], -m))
                taken[donor] -= 1
                taken[n] = 1
    return taken


Strata = tuple[tuple[str, int, int], ...]  # each label's (label, sampled, held)


def draw(questions: Sequence[Question], size: int, seed: int) -> tuple[list[Question], Strata]:
    """The sample (in the questions' own order) and each label's (label, sampled, held)."""
    groups = {label: [n for n, q in enumerate(questions) if label_of(q) == label] for label in STRATA}
    present = [label for label in STRATA if groups[label]]
    taken = allocation([len(groups[label]) for label in present], size)
    rng = np.random.default_rng(seed)
    chosen: set[int] = set()
    for label, count in zip(present, taken, strict=True):
        chosen.update(int(n) for n in rng.choice(groups[label], size=count, replace=False))
    strata = tuple((label, count, len(groups[label])) for label, count in zip(present, taken, strict=True))
    return [q for n, q in enumerate(questions) if n in chosen], strata


@dataclass(frozen=True)
class RefreshPlan:
    """What a refresh records: the sampled questions (a `QuestionSet` of the original's question file), the run it
    goes into, the original's record, and what run.json will say of it."""

    questions: QuestionSet
    run_dir: Path
    original_dir: Path
    original: RunRecord
    refresh: Refresh


def original_questions(original_dir: Path, record: RunRecord) -> QuestionSet:
    """The original's question file as it is now, narrowed to the questions the original recorded."""
    if record.questions_file is None or not record.questions_file.path:
        raise RunDirError(f"{original_dir}/{RUN_FILE} names no question file, so its questions cannot be sampled")
    path = Path(os.path.relpath(os.path.normpath(Path(original_dir).resolve() / record.questions_file.path)))
    if not path.exists():
        raise InputError(f"{path}: the question file {original_dir} was recorded from is gone; restore it to refresh "
                         "the run")
    found = load_questions(path)
    recorded = set(record.texts)
    return dataclasses.replace(found, questions=tuple(q for q in found.questions if q.question in recorded))


def plan_refresh(original_dir: Path, run_dir: Path, size: int, seed: int) -> RefreshPlan:
    """The refresh of `original_dir` into `run_dir`: `size` questions drawn with `seed` (`draw`). `InputError` or
    `RunDirError` naming what is wrong: the original is no run, or is incomplete; the refresh would land in it; the
    sample is larger than its questions; `run_dir` holds another run (another original, sample or seed)."""
    original_dir, run_dir = Path(original_dir), Path(run_dir)
    if run_dir.resolve() == original_dir.resolve() or original_dir.resolve() in run_dir.resolve().parents:
        raise InputError(f"--run {run_dir}: a refresh is recorded into a run of its own, not into {original_dir} "
                         "(its responses must not be served to the refresh); choose another --run DIR")
    record = RunRecord.require(original_dir)
    if record.refresh is not None:
        raise InputError(f"{original_dir} is itself a refresh (of {record.refresh.run}); refresh the original run")
    if not record.complete:
        raise InputError(f"{original_dir}: the run is marked incomplete ({record.incompleteness}); finish it "
                         f"before refreshing it: {finish(f'quotefinder record QUESTIONS --run {original_dir}')}")
    population = original_questions(original_dir, record)
    if not population.questions:
        raise InputError(f"{population.path}: none of the questions {original_dir} recorded are in it any more")
    if size > len(population.questions):
        raise InputError(f"--sample {size}: {original_dir} holds {len(population.questions)} question(s) that "
                         f"{population.path} still lists; sample at most that many")
    sample, strata = draw(population.questions, size, seed)
    digest = run_json_digest(original_dir)
    relative = os.path.relpath(original_dir.resolve(), run_dir.resolve())
    began = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    refresh = Refresh(relative, digest, (record.started_at, record.finished_at), size, seed, strata, began)
    previous = RunRecord.load(run_dir)
    if previous is not None:
        held = previous.refresh
        if held is None:
            raise RunDirError(f"{run_dir}: holds a run that is not a refresh; record the refresh into a new --run DIR")
        if held.origin(run_dir).resolve() != original_dir.resolve() or (held.sample, held.seed) != (size, seed):
            raise RunDirError(f"{run_dir}: is a refresh of {held.origin(run_dir)} (--sample {held.sample} --seed "
                              f"{held.seed}); give those to resume it, or record into a new --run DIR")
        refresh = held  # resumed: as first recorded (the original's digest and dates then), the same questions
        listed = {q.question for q in population.questions}
        gone = [q.id for q in previous.questions if q.question not in listed]
        if gone:
            shown = ", ".join(gone[:5]) + (", ..." if len(gone) > 5 else "")
            raise InputError(f"{population.path}: no longer lists {len(gone)} question(s) the refresh {run_dir} "
                             f"sampled ({shown}); restore them to resume it, or record a new refresh into "
                             "another --run DIR")
        sampled_as = {q.question: label_of(q) for q in previous.questions}
        relabelled = [q.id for q in population.questions
                      if q.question in sampled_as and label_of(q) != sampled_as[q.question]]
        if relabelled:  # its strata were counted with the labels it was drawn by: resuming would mix the two
            shown = ", ".join(relabelled[:5]) + (", ..." if len(relabelled) > 5 else "")
            if previous.complete:
                raise InputError(f"{run_dir}: the refresh is complete, so there is nothing to record, and "
                                 f"{len(relabelled)} question(s) it sampled carry another label now in "
                                 f"{population.path} ({shown}); sweep it as it is (it keeps the labels it was drawn "
                                 "by), or record a new refresh into another --run DIR")
            raise InputError(f"{population.path}: {len(relabelled)} question(s) the refresh {run_dir} sampled carry "
                             f"another label now ({shown}); its sample was stratified by the labels then, so record a "
                             "new refresh into another --run DIR (or restore the labels to resume it)")
        sample = [q for q in population.questions if q.question in sampled_as]
    return RefreshPlan(dataclasses.replace(population, questions=tuple(sample)), run_dir, original_dir, record, refresh)


def refresh_options(plan: RefreshPlan, options: RecordOptions) -> RecordOptions:
    """`options` with what a refresh takes from its original: the system, the pipeline, the repeats and every value
    of the axes the original recorded."""
    config = plan.original.config
    return dataclasses.replace(options, system=config.system, pipeline=config.pipeline, repeats=config.repeats,
                               span=config.span or (0.0, 1.0), ranges=config.covered)
