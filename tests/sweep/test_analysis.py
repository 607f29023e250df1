"""The sweep's analysis: repeats averaged cell by cell, flaky questions, and the CI gate at a point."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from conftest import decided, random_repeats, replayed_of
from quotefinder.questions import Outcome
from quotefinder.sweep.analysis import Settings, analyse
from quotefinder.sweep.grid import Curve, Table, parse_axis


def test_analyse_averages_repeats_and_finds_flaky_questions(tmp_path: Path) -> None:
    runs = random_repeats(3, questions=10, repeats=3)
    replayed = replayed_of(runs, tmp_path)
    axis = parse_axis("0:1:0.1")
    result = analyse(replayed, axis, axis, Settings(resamples=0, folds=0))
    per_repeat = [Table.of([Curve.of(q, t) for q, t in run], axis.values).counts(axis.values) for run in runs]
    assert np.allclose(result.counts, np.mean(per_repeat, axis=0))
    h, a = result.recommended.h, result.recommended.a
    quotes = [[d.quote.candidate.sentence if d.quote else None for d, _ in decided(run, h, a)] for run in runs]
    flaky = {f.question.id for f in result.flaky()}
    assert flaky == {runs[0][n][0].id for n in range(10) if len({found[n] for found in quotes}) > 1}
    assert flaky  # these random repeats do disagree somewhere


def test_the_gate_holds_only_if_every_repeat_holds(tmp_path: Path) -> None:
    runs = random_repeats(5, questions=12, repeats=3)
    axis = parse_axis("0:1:0.1")
    result = analyse(replayed_of(runs, tmp_path), axis, axis, Settings(resamples=0, folds=0))
    wrong = [sum(1 for _, o in decided(run, 0.3, 0.6) if o is Outcome.WRONG) for run in runs]
    assert len(set(wrong)) > 1  # the repeats disagree, so the worst one must decide
    assert result.gate((0.3, 0.6), max(wrong), None).holds
    assert not result.gate((0.3, 0.6), max(wrong) - 1, None).holds
    assert "the worst of the repeats" in result.gate((0.3, 0.6), max(wrong), None).words
