"""Loading a run for the sweep: parallel and serial replays agree, and judged questions map to traces."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, copy_run, record, write_questions
from quotefinder.standin import synthetic
from quotefinder.sweep import replay
from quotefinder.sweep.grid import JudgedCurve, Table, parse_axis
from quotefinder.sweepcmd import main


@pytest.mark.slow
def test_parallel_replay_equals_serial_replay(tmp_path: Path, standin_for, monkeypatch) -> None:
    questions, scenario = synthetic.write(tmp_path / "data", 40, seed=5)
    assert record(tmp_path / "run", questions, standin_for(scenario)) == 0
    points = parse_axis("0:1:0.05", "--x").values.tolist()
    serial = replay.replay_run(tmp_path / "run", {"has_answer": tuple(points)}, jobs=1)
    monkeypatch.setattr(replay, "PARALLEL_FROM", 1)
    parallel = replay.replay_run(tmp_path / "run", {"has_answer": tuple(points)}, jobs=2)
    assert [q.id for q in parallel.questions] == [q.id for q in serial.questions]
    assert parallel.curves == serial.curves
    h = np.array(points)
    tables = [Table.of([JudgedCurve.of(q, c) for q, c in zip(run.questions, run.curves[0], strict=True)], h)
              for run in (serial, parallel)]
    assert np.array_equal(tables[0].counts(h), tables[1].counts(h))


def test_a_question_file_listing_fewer_questions_judges_only_those(tmp_path: Path, monkeypatch) -> None:
    copy_run(ROOT / "runs" / "ten", tmp_path / "runs" / "ten")
    text = (ROOT / "questions" / "ten.yaml").read_text()
    fewer = write_questions(tmp_path / "three.yaml", text[: text.index("  - id: voyager-heliopause")])
    monkeypatch.setattr(replay, "PARALLEL_FROM", 1)
    replayed = replay.replay_run(tmp_path / "runs" / "ten", {"has_answer": (0.3,)}, fewer, jobs=2)
    assert [q.id for q in replayed.questions] == ["mariana-depth", "sunlight-travel", "bones"]
    assert replayed.unjudged_in_run == 7


def _killed(job: object) -> None:
    os.kill(os.getpid(), signal.SIGKILL)  # a loading process killed (the OOM killer, a kill -9) mid-replay


def test_a_loading_process_that_dies_is_an_error_that_says_what_to_do(ten: Path, tmp_path: Path, monkeypatch,
                                                                       capsys) -> None:
    monkeypatch.setattr(replay, "PARALLEL_FROM", 1)
    monkeypatch.setattr(replay, "_replay_chunk", _killed)
    assert main([str(ten), "--no-plots", "--jobs", "2", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err == (f"quotefinder sweep: {ten}: a process loading the run ended abruptly (killed, or out of memory); "
                   "sweep again, or with --jobs 1 to load it in this process\n")
    assert not (tmp_path / "r").exists()


class _Unreadable(Exception):
    def __init__(self, what: str, *, why: str) -> None:  # keyword-only: pickles, but cannot be unpickled
        super().__init__(what)
        self.why = why
