"""Loading a run for the sweep: parallel and serial replays agree, and judged questions map to traces."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, copy_run, record, write_questions
from quotefinder.standin import synthetic
from quotefinder.sweep import replay
from quotefinder.sweep.grid import JudgedCurve, Table, parse_axis
from quotefinder.sweepcmd import main


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
    assert err == (f"sweep.py: {ten}: a process loading the run ended abruptly (killed, or out of memory); sweep "
                   "again, or with --jobs 1 to load it in this process\n")
    assert not (tmp_path / "r").exists()


def _parsed_in_children(monkeypatch) -> list[int]:
    """Every question file parsed apart (whatever its size); the list gets this process's pid for each parse done
    here (a child's parse appends to the child's copy, which this process never sees)."""
    pids: list[int] = []
    judged = replay.judged_with

    def counted(path: Path, *rest: object) -> object:
        pids.append(os.getpid())
        return judged(path, *rest)

    monkeypatch.setattr(replay, "PARSE_APART_FROM", 1)
    monkeypatch.setattr(replay, "judged_with", counted)
    return pids


def test_a_question_file_parsed_in_a_child_is_the_one_parsed_here_with_its_verdicts(ten: Path, monkeypatch) -> None:
    questions = ten.parent.parent / "questions" / "ten.yaml"
    questions.with_name("ten.verdicts.yaml").write_text(
        'labels:\n  - question: "When did Voyager 1 cross the heliopause?"\n    expect: answer\n'
        'verdicts:\n  - question: "How many bones are in the adult human body?"\n'
        '    quote: "An adult human has 206 bones."\n    verdict: wrong\n', encoding="utf-8")
    here = replay.QuestionsInBackground(questions, jobs=1).result()
    pids = _parsed_in_children(monkeypatch)
    apart = replay.QuestionsInBackground(questions, jobs=2)
    assert apart.child is not None  # a child was started
    child = apart.child
    found = apart.result()
    assert pids == []  # so the parse did not run in this process
    assert found == here and found.questions == here.questions
    assert [q.verdicts for q in found.questions] == [q.verdicts for q in here.questions]
    assert any(q.verdicts for q in found.questions) and any(q.line for q in found.questions)
    bones = next(q for q in found.questions if q.verdicts)
    assert bones.judge("An adult human has 206 bones.").value == "wrong"  # the verdict, over the accept pattern
    assert bones.judge("There are 206 bones in an adult.").value == "correct"  # the compiled pattern works
    assert apart.child is None and child.exitcode == 0  # reaped once its answer is in


def test_a_sweep_whose_questions_are_parsed_in_a_child_writes_the_same_report(ten: Path, tmp_path: Path,
                                                                              monkeypatch) -> None:
    assert main([str(ten), "--no-plots", "--jobs", "1", "--no-index", "--out", str(tmp_path / "a")]) == 0
    pids = _parsed_in_children(monkeypatch)
    assert main([str(ten), "--no-plots", "--jobs", "2", "--no-index", "--out", str(tmp_path / "b")]) == 0
    assert pids == []  # (--no-index: nothing kept of an earlier parse, which would be read here)
    for name in ("grid.csv", "questions.csv", "summary.md", "decision.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_a_broken_question_file_says_the_same_from_a_child(ten: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    questions = ten.parent.parent / "questions" / "ten.yaml"
    questions.write_text(questions.read_text().replace("expect: no-answer", "expect: maybe", 1))
    assert main([str(ten), "--no-plots", "--jobs", "1", "--out", str(tmp_path / "a")]) == 2
    here = capsys.readouterr().err
    pids = _parsed_in_children(monkeypatch)
    assert main([str(ten), "--no-plots", "--jobs", "2", "--out", str(tmp_path / "b")]) == 2
    apart = capsys.readouterr().err
    assert pids == []  # the error came from the child
    assert "line" in here and "maybe" in here and apart == here
    assert "Traceback" not in apart and not (tmp_path / "b").exists()


def _dies(parent: int, path: Path, sender: object, *rest: object) -> None:
    (path.parent / "child-started").write_text(str(os.getpid()))
    os.kill(os.getpid(), signal.SIGKILL)  # the child parsing the question file killed (OOM, kill -9)


def test_a_question_parse_whose_child_dies_is_done_here_instead(ten: Path, tmp_path: Path, monkeypatch) -> None:
    assert main([str(ten), "--no-plots", "--jobs", "1", "--no-index", "--out", str(tmp_path / "a")]) == 0
    pids = _parsed_in_children(monkeypatch)
    monkeypatch.setattr(replay, "_parse_apart", _dies)
    assert main([str(ten), "--no-plots", "--jobs", "2", "--no-index", "--out", str(tmp_path / "b")]) == 0
    assert (ten.parent.parent / "questions" / "child-started").exists()  # a child started, and died
    assert pids == [os.getpid()]  # and the file was parsed here instead
    for name in ("grid.csv", "questions.csv", "summary.md", "decision.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def _sleeps(parent: int, path: Path, sender: object, *rest: object) -> None:
    replay.die_with_parent(parent)
    (path.parent / "child-started").write_text(str(os.getpid()))
    time.sleep(120)  # a parse far longer than any test
    (path.parent / "child-finished").write_text("waited for")  # only when the sweep waited for it


def test_ctrl_c_while_the_questions_are_parsed_apart_stops_the_child_at_once(ten: Path, tmp_path: Path,
                                                                              monkeypatch, capsys) -> None:
    _parsed_in_children(monkeypatch)
    monkeypatch.setattr(replay, "_parse_apart", _sleeps)
    started = ten.parent.parent / "questions" / "child-started"

    def interrupted(*args: object, **kwargs: object) -> object:
        deadline = time.monotonic() + 60
        while not started.exists():  # the child is parsing
            assert time.monotonic() < deadline, "the child parsing the questions never started"
            time.sleep(0.01)
        raise KeyboardInterrupt  # Ctrl+C while the index is read

    monkeypatch.setattr(replay.ReplayIndex, "open", interrupted)
    assert main([str(ten), "--no-plots", "--jobs", "2", "--out", str(tmp_path / "r")]) == 2
    assert not (started.parent / "child-finished").exists()  # killed, not waited for
    assert capsys.readouterr().err == f"sweep.py: interrupted; the report in {tmp_path / 'r'} is unchanged\n"
    with pytest.raises(ProcessLookupError):  # killed and reaped
        os.kill(int(started.read_text()), 0)


def test_a_question_file_whose_child_cannot_be_started_is_parsed_here(ten: Path, monkeypatch) -> None:
    import multiprocessing.process

    def refused(self: object) -> None:
        raise BlockingIOError(11, "Resource temporarily unavailable")  # what fork says at a process limit

    questions = ten.parent.parent / "questions" / "ten.yaml"
    here = replay.QuestionsInBackground(questions, jobs=1).result()
    pids = _parsed_in_children(monkeypatch)
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", refused)
    apart = replay.QuestionsInBackground(questions, jobs=2)
    assert apart.child is None
    assert apart.result() == here and pids == [os.getpid()]


class _Unreadable(Exception):
    def __init__(self, what: str, *, why: str) -> None:  # keyword-only: pickles, but cannot be unpickled
        super().__init__(what)
        self.why = why


def _answers_unreadably(parent: int, path: Path, sender, *rest: object) -> None:
    sender.send(_Unreadable("an answer", why="its class cannot be rebuilt from its args"))
    sender.close()


def test_an_answer_from_the_child_that_cannot_be_read_is_replaced_by_a_parse_here(ten: Path, monkeypatch) -> None:
    questions = ten.parent.parent / "questions" / "ten.yaml"
    here = replay.QuestionsInBackground(questions, jobs=1).result()
    pids = _parsed_in_children(monkeypatch)
    monkeypatch.setattr(replay, "_parse_apart", _answers_unreadably)
    assert replay.QuestionsInBackground(questions, jobs=2).result() == here
    assert pids == [os.getpid()]
