"""The refresh sample (`record.refresh`): each label its share, drawn uniformly within it, seeded; what run.json
says of a refresh, read back and checked like every field."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, copy_run
from quotefinder.core.errors import RunDirError
from quotefinder.questions import Question
from quotefinder.record.refresh import allocation, draw
from quotefinder.record.rundir import Refresh, RunRecord


def questions(answer: int, none: int, unlabelled: int = 0) -> list[Question]:
    found = [Question(f"a{n}", f"answer question {n}?", "answer", ()) for n in range(answer)]
    found += [Question(f"n{n}", f"no-answer question {n}?", "no-answer", ()) for n in range(none)]
    return found + [Question(f"u{n}", f"unlabelled question {n}?", None, ()) for n in range(unlabelled)]


@pytest.mark.parametrize(("sizes", "total"), [((7, 3), 5), ((6, 4), 5), ((1, 1, 1), 2), ((90, 9, 11), 10),
                                              ((3, 3), 6), ((5,), 1)])
def test_each_label_gets_its_share_within_one_question(sizes: tuple[int, ...], total: int) -> None:
    taken = allocation(sizes, total)
    assert sum(taken) == total and all(0 <= t <= s for t, s in zip(taken, sizes, strict=True))
    assert all(abs(t - total * s / sum(sizes)) < 1 for t, s in zip(taken, sizes, strict=True))


@pytest.mark.parametrize(("sizes", "total", "expected"), [((95, 5), 10, [9, 1]), ((190, 10), 10, [9, 1]),
                                                          ((98, 1, 1), 3, [1, 1, 1]), ((1, 1, 1), 2, [1, 1, 0]),
                                                          ((90, 9, 1), 10, [8, 1, 1])])
def test_every_label_gets_one_question_when_the_sample_allows(sizes: tuple[int, ...], total: int,
                                                              expected: list[int]) -> None:
    """A label whose share rounds to nothing would leave its questions out of every estimate of the mix: it gets
    one, taken from the label furthest above its share."""
    assert allocation(sizes, total) == expected


def test_the_sample_is_seeded_and_keeps_the_file_order() -> None:
    pool = questions(14, 16)
    first, strata = draw(pool, 12, 3)
    assert first == draw(pool, 12, 3)[0] and first != draw(pool, 12, 4)[0]
    assert strata == (("answer", 6, 14), ("no-answer", 6, 16))
    assert [pool.index(q) for q in first] == sorted(pool.index(q) for q in first)


def test_within_a_label_every_question_is_equally_likely() -> None:
    """Over 2,000 seeds each question's inclusion frequency is its label's sampling fraction (3/7 and 2/5), within
    four standard errors of a binomial proportion."""
    pool = questions(7, 5, 2)
    seeds = 2000
    counts = {q.id: 0 for q in pool}
    for seed in range(seeds):
        for q in draw(pool, 6, seed)[0]:
            counts[q.id] += 1
    _, strata = draw(pool, 6, 0)
    fraction = {label: taken / held for label, taken, held in strata}
    for q in pool:
        p = fraction[q.expect or ""]
        assert abs(counts[q.id] / seeds - p) < 4 * np.sqrt(p * (1 - p) / seeds), q.id


def test_run_json_says_what_it_refreshes_and_reads_it_back(tmp_path: Path) -> None:
    run = copy_run(ROOT / "runs" / "ten", tmp_path / "ten")
    record = RunRecord.require(run)
    refresh = Refresh("../ten", "ab" * 32, ("2026-01-01T00:00:00Z", "2026-01-01T00:01:00Z"), 4, 9,
                      (("answer", 3, 6), ("no-answer", 1, 4)))
    again = tmp_path / "again"
    again.mkdir()
    dataclasses.replace(record, refresh=refresh).save(again)
    assert RunRecord.require(again).refresh == refresh
    assert refresh.origin(again).resolve() == (tmp_path / "ten").resolve()
    data = json.loads((again / "run.json").read_text())
    assert data["refresh"]["strata"] == {"answer": [3, 6], "no-answer": [1, 4]}


@pytest.mark.parametrize(("field", "value", "said"), [
    ("strata", {"answer": [7, 6]}, "refresh.strata"),
    ("strata", {"maybe": [1, 2]}, "refresh.strata"),
    ("run_recorded", ["2026-01-01"], "refresh.run_recorded"),
    ("run", "", "refresh.run"),
    ("sample", -1, "refresh.sample"),
])
def test_a_refresh_block_that_does_not_hold_together_is_refused(tmp_path: Path, field: str, value: object,
                                                                said: str) -> None:
    run = copy_run(ROOT / "runs" / "ten", tmp_path / "ten")
    data = json.loads((run / "run.json").read_text())
    data["refresh"] = {"run": "../x", "run_json_sha256": "", "run_recorded": ["a", "b"], "sample": 1, "seed": 0,
                       "strata": {"answer": [1, 6]}}
    data["refresh"][field] = value
    (run / "run.json").write_text(json.dumps(data))
    with pytest.raises(RunDirError, match=said.replace(".", r"\.")):
        RunRecord.require(run)
