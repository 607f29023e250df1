"""Drift: does a run's evidence still describe the API, and do the cutoffs shipped still keep their promise?

A refresh (`eval.py --refresh RUN --sample N`) records a seeded sample of RUN's questions afresh. Comparing it with
RUN answers three things, each from the responses themselves:

- **The evidence, stage by stage.** Every request the refresh sent is looked up in RUN's cache: the same request
  (the same body and repeat index: the same key) was asked then when its inputs did not change, and its answer then
  and now are compared (`System.readings`: the search results by URL and text, the sentence chosen, the candidate
  preferred, ...). A request RUN never asked was asked afresh because something upstream changed (another result,
  another sentence). Probabilities are compared pair by pair; since the questions are what was sampled, each
  question's mean paired change is one observation, and the test is a two-sided Wilcoxon signed-rank test over the
  questions (`scipy.stats.wilcoxon`): noise moves a question's probabilities either way, a drift one way.
- **Decisions at the shipped cell.** Each question's outcomes then and now on its first m repeats in each run
  (`compare.changes_at`, as `--baseline` compares: like with like), and the one-sided exact sign test of worse
  against fixed questions (`Decisions`). The test is exact only when the cell was fixed before the original's
  responses were seen: then and now are then two exchangeable recordings. A cell chosen on those responses (the
  rule's cell a move ships, or an `--at` other than the run's default cutoffs) is where they happened to look best, so
  fresh ones look worse there by regression alone: with a refresh of the whole original the test said "worse"
  in well over 5% of pure-noise worlds at a stated 5% (`tests/sweep/test_drift_stats.py`). So the sign test
  gates (fails the check) only at the run's default cutoffs; elsewhere it is reported as advisory and never
  fails it. We chose this over testing against held-out folds because the drift check must judge the cell
  actually shipped, and no outcome of a whole-original refresh is unseen by that cell's choice; what still
  gates there are the two tests the choice cannot bias: the stages' probabilities (paired request by request,
  whatever the cell) and the wrong-answer rate now (fresh responses only).
- **The wrong-answer rate now**, at that cell, from each question's first repeat: per label (answer, no-answer,
  unlabelled), an exact Clopper-Pearson bound at level delta / (labels sampled), combined with the label's share of
  RUN's questions, so that the bound is for RUN's question mix whatever the sample's rounding (Bonferroni over the
  labels). The one-sided lower bound says the rate is above ALPHA with confidence 1 - delta; the upper bound that it
  is below.

`--drift` fails (exit 1) when a stage's probabilities shifted (`Drift.shifted`: family-wise at `significance` under
noise that moves each question either way alike), when the rate now is shown above `--max-wrong-rate` (at most
delta of the time while the rate is at or below it), or, at the run's default cutoffs only, when the sign test
says worse (at most `significance` under exchangeable recordings). Each holds its own level; the check as a whole
holds at most their sum (a union bound).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import CorruptEntry, InputError
from ..core.plugin import Reading, System
from ..core.requests import ApiRequest
from ..questions import Question
from ..record.rundir import RUN_FILE, RunRecord, run_json_digest
from ..record.store import ResponseStore, open_store
from .analysis import LOSSY, Sweep
from .compare import SIGNIFICANCE, Change, ChangeKind, changes_at, pipeline_changes, sign_test_of
from .grid import at_point
from .guarantee import DELTA, upper_bounds
from .monitor import Weighted
from .replay import Coverage, Unreplayable, replay, run_system

LABELS = {"answer": "answer", "no-answer": "no-answer", "": "unlabelled"}


def drift_problems(new: RunRecord, original: RunRecord) -> list[str]:
    """Why the refresh cannot be compared with the original ([] when it can): another system, pipeline, pipeline or
    cache version, kind of evidence, or questions the original never asked."""
    problems = []
    if new.config.system != original.config.system:
        problems.append(f"another system ({original.config.system} then, {new.config.system} now)")
    elif new.config.pipeline_digest != original.config.pipeline_digest:
        changed = pipeline_changes(original.config.pipeline.as_json(), new.config.pipeline.as_json())
        problems.append(f"another pipeline ({'; '.join(changed) or 'its digest'})")
    for name, then, now in (("pipeline version", original.pipeline_version, new.pipeline_version),
                            ("cache format", original.cache_format, new.cache_format)):
        if then != now:
            problems.append(f"another {name} ({then!r} then, {now!r} now)")
    if new.evidence != original.evidence:
        problems.append(f"{original.evidence} evidence then, {new.evidence} evidence now (mixed evidence)")
    strangers = set(new.texts) - set(original.texts)
    if strangers:
        problems.append(f"another question set ({len(strangers)} question(s) the original never asked)")
    return problems


@dataclass(frozen=True)
class StageDrift:
    """One stage's requests in the refresh, against the same requests in the original."""

    stage: str
    asked: int  # requests the refresh holds at this stage (each question repeat compared)
    paired: int  # of them, asked identically then (the same key)
    changed: int  # of the paired, a different answer now
    probability: str  # the name of the probabilities compared ('' when the stage gives none)
    per_question: tuple[float, ...]  # each question's mean paired change of those probabilities (now - then)
    pairs: int  # probabilities compared
    sources: bool = False  # the stage that finds the sources (its readings name a top one)

    @property
    def fresh(self) -> int:
        """Requests the original never asked: their inputs changed upstream."""
        return self.asked - self.paired

    @property
    def mean_change(self) -> float | None:
        """The mean over questions of each question's mean paired change; None without pairs."""
        return float(np.mean(self.per_question)) if self.per_question else None

    @property
    def p_value(self) -> float | None:
        """The two-sided Wilcoxon signed-rank test of 'no shift' over the questions' mean changes (1.0 when none
        moved; None without pairs)."""
        if not self.per_question:
            return None
        moved = [d for d in self.per_question if d != 0.0]
        if not moved:
            return 1.0
        from scipy.stats import wilcoxon

        return float(wilcoxon(moved, zero_method="wilcox", alternative="two-sided").pvalue)


@dataclass(frozen=True)
class QuestionDrift:
    """One sampled question: its top result and its quote at the shipped cell (first repeat) then and now, and how
    its outcomes changed there (`compare.Change`)."""

    question: Question
    top_then: str | None
    top_now: str | None
    quote_then: str | None
    quote_now: str | None
    change: Change

    @property
    def top_changed(self) -> bool:
        return self.top_then != self.top_now

    @property
    def quote_changed(self) -> bool:
        return self.quote_then != self.quote_now


@dataclass(frozen=True)
class WrongRate:
    """The wrong-answer rate at the shipped cell in the refresh (first repeats), for the original's question mix:
    per label (label, wrong, sampled, the original's questions with that label), the estimate, and one-sided
    bounds each at confidence 1 - delta."""

    strata: tuple[tuple[str, int, int, int], ...]
    delta: float
    estimate: float
    lower: float
    upper: float

    @property
    def partial(self) -> list[str]:
        """The labels the original holds that the sample left out (their rate enters as anything from 0 to 1)."""
        return [label for label, _, n, of in self.strata if n == 0 and of > 0]

    @classmethod
    def of(cls, strata: Sequence[tuple[str, int, int, int]], delta: float = DELTA) -> WrongRate:
        """`strata` as (label, wrong, sampled, held). A label sampled gets Clopper-Pearson bounds at delta / (labels
        sampled); a label held but not sampled contributes its share as 0 to the lower bound and as 1 to the upper,
        and makes the estimate NaN."""
        held = sum(s[3] for s in strata)
        used = [s for s in strata if s[2] > 0]
        if not used or held == 0:
            return cls(tuple(strata), delta, math.nan, 0.0, 1.0)
        level = delta / len(used)
        estimate = lower = upper = 0.0
        for _, wrong, n, of in strata:
            share = of / held
            if n == 0:
                estimate, upper = math.nan, upper + share
                continue
            estimate += share * wrong / n
            upper += share * float(upper_bounds(np.array([wrong]), n, level)[0])
            lower += share * (1.0 - float(upper_bounds(np.array([n - wrong]), n, level)[0]))  # of the right ones
        return cls(tuple(strata), delta, estimate, max(lower, 0.0), min(upper, 1.0))


@dataclass(frozen=True)
class Decisions:
    """Each sampled question's change at the shipped cell (`compare.Change.kind`), and whether that cell was fixed
    before the original's responses were seen (the run's default cutoffs). The one-sided exact sign test of worse
    against fixed questions is exact only then, and only then does it gate (`fails`); at a cell chosen on the
    original's responses it is advisory: reported, never failing the check (see the module's docstring). When the
    recommendation rule kept the default cutoffs it gates too: failing then needs the test at the default to say
    worse, which happens at most `significance` of the time under noise, whatever the rule chose."""

    kinds: tuple[ChangeKind, ...]
    fixed: bool
    significance: float = SIGNIFICANCE

    @property
    def sign_test(self) -> tuple[int, int, float]:
        """(questions worse, questions fixed, the one-sided exact sign test's p-value)."""
        return sign_test_of(self.kinds)

    @property
    def worse(self) -> bool:
        """The sign test's p-value is below `significance`."""
        return self.sign_test[2] < self.significance

    @property
    def fails(self) -> bool:
        """Worse, at a cell fixed in advance: what the sign test contributes to the exit status."""
        return self.fixed and self.worse


@dataclass
class Drift:
    """A refresh against its original: the evidence per stage, decisions at the shipped cell, the rate now."""

    original: Path
    refresh: Path
    original_record: RunRecord
    refresh_record: RunRecord
    point: tuple[float, float]
    point_from: str  # where the shipped cell comes from, in words
    stages: list[StageDrift]
    questions: list[QuestionDrift]
    repeats_compared: int
    rate: WrongRate
    significance: float = SIGNIFICANCE
    max_wrong_rate: float | None = None
    cautions: list[str] = field(default_factory=list)

    @property
    def decisions(self) -> Decisions:
        """Decisions at the shipped cell then and now, and whether their sign test gates the check."""
        default = self.original_record.config.default_point
        fixed = all(math.isclose(float(d), float(p), abs_tol=1e-12) for d, p in zip(default, self.point, strict=True))
        return Decisions(tuple(q.change.kind for q in self.questions), fixed, self.significance)

    @property
    def sign_test(self) -> tuple[int, int, float]:
        """(questions worse, questions fixed, the one-sided exact sign test's p-value)."""
        return self.decisions.sign_test

    @property
    def worse(self) -> bool:
        """The sign test says decisions at the shipped cell got worse (p < significance), gating or advisory."""
        return self.decisions.worse

    @property
    def above(self) -> bool:
        """With --max-wrong-rate: the refresh shows the rate above it with confidence 1 - delta."""
        return self.max_wrong_rate is not None and self.rate.lower > self.max_wrong_rate

    @property
    def failed(self) -> bool:
        """What exit 1 follows: a stage's probabilities shifted, the rate now above --max-wrong-rate, or (at the
        run's default cutoffs only) decisions worse."""
        return self.decisions.fails or bool(self.shifted) or self.above

    @property
    def shifted(self) -> list[StageDrift]:
        """The stages whose probabilities moved one way beyond noise: the Wilcoxon test below `significance` shared
        among the stages tested (Bonferroni), so that pure noise flags some stage at most that often."""
        tested = [s for s in self.stages if s.p_value is not None]
        return [s for s in tested if s.p_value is not None and s.p_value < self.significance / len(tested)]

    @property
    def changed(self) -> list[StageDrift]:
        """The stages that find the sources (the search results; the quote-answer API's answer with its sources)
        where a request asked again came back different: the pages changed. Elsewhere an answer may change from
        noise alone (a close call among probabilities, a summary written anew): a stage's probabilities' shift,
        and the decisions, are what tell."""
        return [s for s in self.stages if s.sources and s.changed]

    @property
    def holds(self) -> bool:
        """The evidence still describes the API: no source changed, no probability shifted beyond noise, and
        decisions at the shipped cell are not worse by a sign test that gates (an advisory one does not count).
        (Whether the rate now keeps --max-wrong-rate is `above`'s.)"""
        return not (self.changed or self.shifted or self.decisions.fails)


def shipped_point(at: tuple[float, float] | None, original: Sweep) -> tuple[tuple[float, float], str]:
    """The cell the drift is checked at: --at, else the point the original run's decision ships."""
    if at is not None:
        return at, "--at"
    return ((original.recommended.h, original.recommended.a),
            f"the point {original.replayed.run_dir}'s decision ships: {original.decision.action.value}")


def _walk(store: ResponseStore, under_test: System, config: Any, coverage: Coverage, text: str, repeat: int,
          then: ResponseStore) -> list[tuple[Reading, Reading | None]]:
    """Each request of one question repeat in the refresh (its `store`), read (`System.readings`), beside the
    original's reading of the same request (None when the original never asked it).

    The refresh is read through the sweep's own door, `replay.replay`, which is told each request and the data that
    answered it. The original is looked up request by request (`ResponseStore.get`), not replayed: the comparison
    is of the same request then and now, and where something upstream changed the refresh asks requests the
    original's own replay would never reach."""
    found: list[tuple[Reading, Reading | None]] = []

    def compared(request: ApiRequest, data: Any) -> None:
        try:
            old = then.get(request)
        except CorruptEntry as error:
            raise InputError(f"{error}; the original run's entry cannot be compared") from None
        olds = under_test.readings(request, old.data) if old is not None else []
        for n, reading in enumerate(under_test.readings(request, data)):
            found.append((reading, olds[n] if n < len(olds) else None))

    replayed = replay(under_test, config, store, [(text, repeat)], coverage, seen=compared)[text, repeat]
    if isinstance(replayed, Unreplayable):
        raise InputError(replayed.why)
    return found


def evidence(refresh: Path, original: Path, record: RunRecord, questions: Sequence[Question], repeats: int,
             coverage: Coverage, progress: Callable[[], None] = lambda: None
             ) -> tuple[list[StageDrift], dict[str, tuple[str | None, str | None]]]:
    """The stages compared over `questions` x the first `repeats` repeats, and each question's top result (first
    repeat) then and now."""
    under_test, config = run_system(record)
    now, then = open_store(refresh, record.cache_format), open_store(original, record.cache_format)
    asked: dict[str, int] = defaultdict(int)
    paired: dict[str, int] = defaultdict(int)
    changed: dict[str, int] = defaultdict(int)
    names: dict[str, str] = {}
    moves: dict[str, list[float]] = defaultdict(list)
    counted: dict[str, int] = defaultdict(int)
    tops: dict[str, tuple[str | None, str | None]] = {}
    order: list[str] = []
    finding: set[str] = set()
    try:
        for question in questions:
            per_stage: dict[str, list[float]] = defaultdict(list)
            for repeat in range(repeats):
                for new, old in _walk(now, under_test, config, coverage, question.question, repeat, then):
                    if new.stage not in asked:
                        order.append(new.stage)
                    asked[new.stage] += 1
                    names.setdefault(new.stage, new.probability)
                    if new.top is not None:
                        finding.add(new.stage)
                    if repeat == 0 and new.top is not None and question.id not in tops:
                        tops[question.id] = (old.top if old is not None else None, new.top)
                    if old is None:
                        continue
                    paired[new.stage] += 1
                    changed[new.stage] += new.answer != old.answer
                    if len(new.probabilities) == len(old.probabilities):
                        per_stage[new.stage] += [a - b for a, b in zip(new.probabilities, old.probabilities,
                                                                       strict=True)]
            for stage, differences in per_stage.items():
                if differences:
                    moves[stage].append(float(np.mean(differences)))
                    counted[stage] += len(differences)
            progress()
    finally:
        now.close()
        then.close()
    stages = [StageDrift(stage, asked[stage], paired[stage], changed[stage], names[stage],
                         tuple(moves[stage]) if names[stage] else (), counted[stage], stage in finding)
              for stage in order]
    return stages, tops


def question_drifts(new: Sweep, original: Sweep, point: tuple[float, float],
                    tops: dict[str, tuple[str | None, str | None]]) -> tuple[list[QuestionDrift], int]:
    """Each sampled question at the shipped cell, then and now, and the repeats compared (m)."""
    rows, m = changes_at(new, original, point)
    now = {j_curve.question.question: j for j_curve, j in zip(new.judged[0], at_point(new.judged[0], *point),
                                                               strict=True)}
    then = {j_curve.question.question: j for j_curve, j in zip(original.judged[0],
                                                                at_point(original.judged[0], *point), strict=True)}
    found = []
    for row in rows:
        text = row.question.question
        top_then, top_now = tops.get(row.question.id, (None, None))
        found.append(QuestionDrift(row.question, top_then, top_now, then[text].sentence, now[text].sentence, row))
    return found, m


def losses_at(result: Sweep, point: tuple[float, float], repeats: int | None = 1) -> list[tuple[str, float]]:
    """Each question's label as its run recorded it (the label it was sampled by; '' unlabelled) and its share of
    wrong answers at `point` (a quote not known to be correct counts as wrong, as the guarantee counts it) over
    its first `repeats` repeats (None: every one), judged with the question file as it is now."""
    recorded = {q.question: q.expect or "" for q in result.replayed.record.questions}
    runs = [at_point(curves, *point) for curves in result.judged[:repeats]]
    return [(recorded.get(question.question, question.expect or ""),
             float(np.mean([run[n].quote is not None and run[n].outcome in LOSSY for run in runs])))
            for n, question in enumerate(result.questions)]


def label_weights(record: RunRecord, original: RunRecord) -> dict[str, int]:
    """How many of the original's questions each label holds: the refresh's `strata` (counted when it was drawn); for
    a run that is no refresh, the original's recorded questions."""
    if record.refresh is not None:
        return {label: held for label, _, held in record.refresh.strata}
    return {label: sum(1 for q in original.questions if (q.expect or "") == label) for label in LABELS}


def wrong_rate(new: Sweep, point: tuple[float, float], record: RunRecord, original: RunRecord,
               delta: float) -> WrongRate:
    """The rate at `point` from the refresh's first repeats, per label, weighted by the original's label counts; a
    label the original holds but the refresh did not sample enters the bounds as anything from 0 to 1."""
    losses = losses_at(new, point)
    held = label_weights(record, original)
    strata = []
    for label in LABELS:
        mine = [loss for found, loss in losses if found == label]
        if mine or held.get(label, 0):
            strata.append((label, int(sum(mine)), len(mine), held.get(label, 0) or len(mine)))
    return WrongRate.of(strata, delta)


def weighted_estimate(new: Sweep, point: tuple[float, float], record: RunRecord,
                      original: RunRecord) -> tuple[Weighted, list[str]]:
    """The refresh's estimate of the wrong-answer rate at `point` on the original's question mix, with its effective
    questions (`stratified`), and the labels it sampled no question of: each question's share of wrong answers over
    every repeat, each label's mean weighted by its share of the original's questions (unbiased for that mix under
    the stratified sample)."""
    return stratified(losses_at(new, point, None), label_weights(record, original))


def stratified(losses: Sequence[tuple[str, float]], held: dict[str, int]) -> tuple[Weighted, list[str]]:
    """(label, loss) per question, weighted by the labels' `held` counts in the original: the estimate sum_l (N_l /
    N) mean_l, the effective questions min over the labels sampled of n_l / (N_l / N) (`monitor`'s e_k), and the labels
    held but not sampled. Those count as never wrong: the estimate is then biased low, never high, so an alarm or a
    lower bound built on it stays valid (and the monitor says so)."""
    missing = [label for label, count in held.items() if count and not any(f == label for f, _ in losses)]
    sampled = {label: [loss for found, loss in losses if found == label] for label in LABELS if held.get(label, 0)}
    total = sum(held[label] for label in sampled)
    if not total:
        return Weighted(math.nan, 0.0), missing
    shares = {label: held[label] / total for label in sampled}
    estimate = sum(shares[label] * float(np.mean(found)) for label, found in sampled.items() if found)
    effective = min((len(found) / shares[label] for label, found in sampled.items() if found), default=0.0)
    return Weighted(estimate, effective), missing


def require_comparable(new: RunRecord, original: RunRecord, new_dir: Path, original_dir: Path) -> list[str]:
    """The cautions for comparing a refresh with its original; `InputError` (exit 2) when they cannot be compared."""
    if Path(new_dir).resolve() == Path(original_dir).resolve():
        raise InputError(f"{new_dir} is given as its own original: --drift compares a refresh with the run it "
                         "refreshes")
    problems = drift_problems(new, original)
    if problems:
        raise InputError(f"{new_dir} cannot be compared with {original_dir}: " + "; ".join(problems))
    cautions = []
    if new.refresh is not None and Path(new.refresh.origin(new_dir)).resolve() != Path(original_dir).resolve():
        cautions.append(f"{new_dir} refreshes {new.refresh.origin(new_dir)}, not {original_dir}")
    if new.refresh is not None:
        digest = run_json_digest(original_dir)
        if digest != new.refresh.run_json_sha256:
            cautions.append(f"{original_dir}/{RUN_FILE} changed since the refresh began (it was re-recorded or "
                            "extended): the comparison is with what it holds now")
    if new.repeats != original.repeats:
        cautions.append(f"{original.repeats} repeat(s) then, {new.repeats} now: each question is compared on its first "
                        f"{min(new.repeats, original.repeats)}")
    return cautions
