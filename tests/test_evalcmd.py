"""`eval.py` end to end against the stand-in API over loopback (real sockets, real httpx)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from conftest import (
    KEY,
    ROOT,
    TEN_QUESTIONS,
    TEN_SCENARIO,
    copy_run,
    env_for,
    expected_requests,
    page,
    run_files,
    write_questions,
    write_scenario,
)
from quotefinder.evalcmd import main
from quotefinder.standin import Reply, load_scenario

FAST = ["--rate", "0", "--retries", "0"]


def record_ten(tmp_path: Path, standin_for, capsys) -> tuple[Path, object, str]:
    server = standin_for(TEN_SCENARIO)
    run_dir = tmp_path / "run"
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST], env=env_for(server)) == 0
    return run_dir, server, capsys.readouterr().out


def test_records_every_response_and_reports_the_default_decisions(tmp_path, standin_for, capsys) -> None:
    run_dir, server, out = record_ten(tmp_path, standin_for, capsys)
    searches, ranks, compares = expected_requests(TEN_SCENARIO)
    assert server.count("/search") == searches == 10
    assert server.count("/v1/decisions", "rank") == ranks
    assert server.count("/v1/decisions", "compare") == compares  # one per distinct qualified set
    assert len(list((run_dir / "responses").rglob("*.json"))) == searches + ranks + compares

    record = json.loads((run_dir / "run.json").read_text())
    assert record["complete"] is True and record["evidence"] == "synthetic" and record["errors"] == []
    assert record["requests"]["sent"] == searches + ranks + compares
    assert record["config"]["base_url_host"] == "127.0.0.1" and record["config"]["has_answer_range"] == [0.0, 1.0]
    assert record["questions_file"]["path"].endswith("questions/ten.yaml") and len(record["questions"]) == 10
    assert record["input_tokens"] > 0

    assert out.startswith("SYNTHETIC evidence")
    assert '"Hubble was launched April 24, 1990, aboard Space Shuttle Discovery."' in out  # 0.99742 beats 0.99716
    assert "Closest (has_answer 0.241, below cutoff):" in out
    table = out[out.index("Outcome    | Count"):]
    assert "correct    |     6" in table and "wrong      |     1" in table
    assert "missed     |     0" in table and "no-answer  |     3" in table


def test_a_rerun_sends_nothing_and_leaves_the_run_byte_identical(tmp_path, standin_for, capsys) -> None:
    run_dir, _, first = record_ten(tmp_path, standin_for, capsys)
    before = run_files(run_dir)
    other = standin_for(TEN_SCENARIO)  # another port and another API key: cache keys depend on neither
    env = {"PERPLEXITY_API_KEY": "another-key", "PERPLEXITY_BASE_URL": other.base_url}
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir)], env=env) == 0
    assert other.count("/search") + other.count("/v1/decisions") == 0
    assert run_files(run_dir) == before
    assert capsys.readouterr().out == first


def test_files_are_private_and_the_key_is_nowhere(tmp_path, standin_for, capsys) -> None:
    run_dir, _, out = record_ten(tmp_path, standin_for, capsys)
    for path in [run_dir, *run_dir.rglob("*")]:
        assert stat.S_IMODE(path.stat().st_mode) == (0o700 if path.is_dir() else 0o600), path
        if path.is_file():
            assert KEY.encode() not in path.read_bytes()
    assert KEY not in out


def test_no_key_stops_before_any_request(tmp_path, standin_for, capsys) -> None:
    server = standin_for(TEN_SCENARIO)
    env = {"PERPLEXITY_BASE_URL": server.base_url}
    assert main([str(TEN_QUESTIONS), "--run", str(tmp_path / "run")], env=env) == 2
    assert "PERPLEXITY_API_KEY is not set" in capsys.readouterr().err
    assert server.count("/search") == 0 and not (tmp_path / "run").exists()


def test_offline_never_connects_and_lists_what_is_missing(tmp_path, standin_for, capsys) -> None:
    run_dir, server, _ = record_ten(tmp_path, standin_for, capsys)

    def no_network(request: httpx.Request) -> httpx.Response:
        raise AssertionError("--offline opened a connection")

    offline = [str(TEN_QUESTIONS), "--run", str(run_dir), "--offline"]
    assert main(offline, env={}, transport=httpx.MockTransport(no_network)) == 0
    for entry in (run_dir / "responses").rglob("*.json"):  # the searches of two questions, nothing else
        saved = json.loads(entry.read_text())
        if saved["endpoint"] == "/search" and any(word in saved["request"]["query"] for word in ("Eiffel", "Rome")):
            entry.unlink()
    before = run_files(run_dir)
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), "--offline"], env=env_for(server)) == 2
    err = capsys.readouterr().err
    assert "--offline: 2 question(s) need responses" in err
    assert "  eiffel-rivets: missing the search" in err and "  treaty-of-rome-ink: missing the search" in err
    assert run_files(run_dir) == before


def test_an_interrupted_run_resumes_sending_only_what_is_missing(tmp_path, standin_for, capsys) -> None:
    served = []
    lock = threading.Lock()

    def fail_after_twenty(path: str, body: dict) -> Reply | None:
        with lock:
            served.append(body)
            if len(served) > 20:
                return Reply(503, b'{"error": "overloaded"}', (("Content-Type", "application/json"),))
        return None

    broken = standin_for(TEN_SCENARIO, fault=fail_after_twenty)
    run_dir = tmp_path / "run"
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST], env=env_for(broken)) == 2
    record = json.loads((run_dir / "run.json").read_text())
    assert record["complete"] is False and record["errors"]
    saved = {p.stem for p in (run_dir / "responses").rglob("*.json")}
    assert len(saved) == 20
    assert "could not be completed; rerun" in capsys.readouterr().err

    healthy = standin_for(TEN_SCENARIO)
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST], env=env_for(healthy)) == 0
    from quotefinder.core.requests import ApiRequest
    resent = {ApiRequest(path, body).key for path, body in healthy.requests}
    assert not resent & saved  # nothing that had succeeded was sent again
    searches, ranks, compares = expected_requests(TEN_SCENARIO)
    assert len(saved) + len(resent) == searches + ranks + compares
    assert json.loads((run_dir / "run.json").read_text())["complete"] is True


@pytest.mark.slow
def test_an_edited_question_set_reuses_identical_requests(tmp_path, standin_for, capsys) -> None:
    run_dir, _, _ = record_ten(tmp_path, standin_for, capsys)
    text = TEN_QUESTIONS.read_text()
    edited = text.replace("    expect: no-answer\n", "    expect: answer\n", 1) + (
        "  - id: extra\n    question: What is the extra question?\n    expect: answer\n")
    path = write_questions(tmp_path / "ten.yaml", edited)
    extra = write_scenario(tmp_path / "extra.json", {"What is the extra question?": [
        page("Extra", "https://extra.example", "The extra question has an answer right here.", answers=0.9)]})
    scenario = load_scenario(TEN_SCENARIO)
    scenario.questions.update(load_scenario(extra).questions)
    server = standin_for(scenario)
    assert main([str(path), "--run", str(run_dir), *FAST], env=env_for(server)) == 0
    assert "1 added ('What is the extra question?'); 1 relabelled" in capsys.readouterr().err
    assert server.count("/search") == 1 and server.count("/v1/decisions") == 2
    record = json.loads((run_dir / "run.json").read_text())
    assert record["questions_file"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert len(record["questions"]) == 11


def test_a_refused_key_stops_the_run_at_once(tmp_path, standin_for, capsys) -> None:
    server = standin_for(TEN_SCENARIO, key="the-right-key")
    assert main([str(TEN_QUESTIONS), "--run", str(tmp_path / "run"), *FAST], env=env_for(server)) == 2
    err = capsys.readouterr().err
    assert "PERPLEXITY_API_KEY was refused" in err and KEY not in err
    assert json.loads((tmp_path / "run" / "run.json").read_text())["complete"] is False


def test_live_responses_never_enter_a_synthetic_run(tmp_path, standin_for, capsys) -> None:
    run_dir, server, _ = record_ten(tmp_path, standin_for, capsys)
    path = write_questions(tmp_path / "more.yaml", TEN_QUESTIONS.read_text() + (
        "  - {id: new, question: A brand new question?, expect: no-answer}\n"))
    before = run_files(run_dir)

    def live(request: httpx.Request) -> httpx.Response:  # a real API sets no evidence header
        return httpx.Response(200, json={"results": []})

    env = {"PERPLEXITY_API_KEY": KEY, "PERPLEXITY_BASE_URL": "https://api.example"}
    assert main([str(path), "--run", str(run_dir), *FAST, "--force"], env=env, transport=httpx.MockTransport(live)) == 2
    assert "live and synthetic evidence never mix" in capsys.readouterr().err
    after = run_files(run_dir)
    assert {k for k in after if k.startswith("responses")} == {k for k in before if k.startswith("responses")}


def test_the_committed_demo_replays_from_a_clean_checkout_without_a_key(tmp_path, monkeypatch, capsys) -> None:
    copy_run(ROOT / "runs" / "ten", tmp_path / "runs" / "ten")
    shutil.copytree(ROOT / "questions", tmp_path / "questions")
    monkeypatch.chdir(tmp_path)
    before = run_files(tmp_path / "runs" / "ten")
    assert main(["questions/ten.yaml"], env={}) == 0
    assert run_files(tmp_path / "runs" / "ten") == before
    out = capsys.readouterr().out
    assert out.startswith("SYNTHETIC evidence") and "(synthetic)" in out


@pytest.mark.parametrize("args", [["--has-answer-range", "0.5:0.2"], ["--has-answer-range", "0:2"],
                                  ["--has-answer-range", "0.2:0.5:0.07"], ["--rate", "inf"],
                                  ["--has-answer-range", "x"], ["--concurrency", "0"], ["--concurrency", "-3"],
                                  ["--rate", "-1"], ["--rate", "nan"], ["--timeout", "0"]])
def test_bad_options_exit_2_with_a_message(args, capsys) -> None:
    assert main([str(TEN_QUESTIONS), *args], env={}) == 2
    assert "error:" in capsys.readouterr().err


def test_a_bad_question_file_exits_2_naming_it(tmp_path, capsys) -> None:
    path = write_questions(tmp_path / "bad.yaml", "questions:\n  - question: Why?\n    expect: perhaps\n")
    assert main([str(path), "--run", str(tmp_path / "run")], env={}) == 2
    assert f"{path}, line 3" in capsys.readouterr().err


@pytest.mark.slow
def test_repeats_are_independent_observations_and_extending_sends_only_the_new_ones(tmp_path, standin_for,
                                                                                    capsys) -> None:
    scenario = load_scenario(TEN_SCENARIO)
    scenario.repeat_jitter = 0.05
    server = standin_for(scenario)
    run_dir = tmp_path / "run"
    one_repeat = sum(expected_requests(TEN_SCENARIO))
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST, "--repeats", "2", "--concurrency", "1"],
                env=env_for(server)) == 0
    assert len(server.requests) >= 2 * one_repeat - 4  # a repeat's qualified sets may differ a little
    record = json.loads((run_dir / "run.json").read_text())
    assert record["config"]["repeats"] == 2
    out = capsys.readouterr().out
    assert "repeats: correct, correct" in out and "over 2 repeats" in out
    entries = [json.loads(p.read_text()) for p in (run_dir / "responses").rglob("*.json")]
    by_body: dict[str, list] = {}
    for entry in entries:
        if entry["endpoint"] == "/v1/decisions" and "best" in entry["request"]["questions"]:
            by_body.setdefault(json.dumps(entry["request"], sort_keys=True), []).append(entry)
    pairs = [found for found in by_body.values() if len(found) == 2]
    assert pairs and all({e["repeat"] for e in found} == {0, 1} for found in pairs)
    assert any(found[0]["response"]["answers"]["has_answer"] != found[1]["response"]["answers"]["has_answer"]
               for found in pairs)  # the same request, observed twice, answered a little differently

    before, mark = run_files(run_dir), len(server.requests)
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST, "--repeats", "3"], env=env_for(server)) == 0
    sent = len(server.requests) - mark
    after = run_files(run_dir)
    new = {name for name in after if name not in before}
    assert all(after[name] == before[name] for name in before if name != "run.json")  # nothing saved was touched
    assert {json.loads(after[name])["repeat"] for name in new if name != "run.json"} == {2}
    assert len(new) == sent and one_repeat - 4 <= sent <= one_repeat + 4  # only the new repeat was sent
    assert json.loads((run_dir / "run.json").read_text())["config"]["repeats"] == 3
    capsys.readouterr()
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), "--offline"], env={}) == 0  # keeps 3 repeats
    assert "over 3 repeats" in capsys.readouterr().out


def test_the_covered_range_joins_overlapping_recordings(tmp_path, standin_for, capsys) -> None:
    server = standin_for(TEN_SCENARIO)
    run_dir = tmp_path / "run"
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST, "--has-answer-range", "0.2:0.5"],
                env=env_for(server)) == 0
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST, "--has-answer-range", "0.4:0.9"],
                env=env_for(server)) == 0
    assert json.loads((run_dir / "run.json").read_text())["config"]["has_answer_range"] == [0.2, 0.9]


def test_help_teaches_the_cutoffs_and_the_key(capsys) -> None:
    """`python eval.py --help` is `quotefinder record --help`: what each axis of the system does, and its default,
    and the key's variable."""
    assert main(["--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "usage: quotefinder record QUESTIONS" in text
    assert "has_answer: HAS_ANSWER_CUTOFF, default 0.3; compare results whose has_answer >= it" in text
    assert "answer: ANSWER_CUTOFF, default 0.6; quote when the top compare probability >= it" in text
    assert "PERPLEXITY_API_KEY" in text and "--range NAME=VALUES" in text


@pytest.mark.parametrize("spec", ["0.2:0.5", "0.2:0.5:0.05"])
def test_the_covered_range_takes_a_sweeps_axis_too(tmp_path, standin_for, spec) -> None:
    server = standin_for(TEN_SCENARIO)
    run_dir = tmp_path / "run"
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST, "--has-answer-range", spec],
                env=env_for(server)) == 0
    assert json.loads((run_dir / "run.json").read_text())["config"]["has_answer_range"] == [0.2, 0.5]


def test_an_estimate_sends_nothing_and_bounds_what_recording_sends(tmp_path, standin_for, capsys) -> None:
    server = standin_for(TEN_SCENARIO)
    run_dir = tmp_path / "run"
    env = env_for(server)
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), "--estimate", "--price-per-1k-requests", "5",
                 "--price-per-million-tokens", "2"], env={}) == 0
    out = capsys.readouterr().out
    assert len(server.requests) == 0 and not run_dir.exists()  # nothing sent, nothing written
    assert "at most 110 requests (10 question repeat(s)" in out  # 10 questions x (1 + 5 + 5)
    assert "the recipe's published figures" in out and "time at --rate 10: about" in out
    assert "requests at 5 per 1,000: about 0.55, at most 0.55" in out
    assert "expected about 110 requests and 67,800 input tokens" in out  # 10 x (5 + 5) Decisions requests x 678
    assert "input tokens at 2 per million: about 0.14" in out
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST], env=env) == 0
    searches, ranks, compares = expected_requests(TEN_SCENARIO)
    assert len(server.requests) == searches + ranks + compares <= 110
    capsys.readouterr()
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), "--estimate"], env={}) == 0
    assert "at most 0 requests" in capsys.readouterr().out
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), "--estimate", "--repeats", "2"], env={}) == 0
    out = capsys.readouterr().out
    per_question = (searches + ranks + compares) / 10
    assert "at most 110 requests" in out and f"expected about {per_question * 10:,.0f} requests" in out
    assert "this run's own 10 recorded question repeat(s)" in out


@pytest.mark.parametrize("budget", [1, 7, 23])
def test_max_requests_stops_like_an_interrupt_and_the_next_run_goes_on(tmp_path, standin_for, capsys,
                                                                       budget) -> None:
    server = standin_for(TEN_SCENARIO)
    run_dir = tmp_path / "run"
    env = env_for(server)
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST, "--max-requests", str(budget)], env=env) == 2
    assert len(server.requests) == budget  # never more, and every one of them in flight was answered ...
    saved = {p.name for p in (run_dir / "responses").rglob("*.json")}
    assert len(saved) == budget  # ... and saved
    record = json.loads((run_dir / "run.json").read_text())
    assert record["complete"] is False and record["requests"]["sent"] == budget
    assert "Stopped at --max-requests" in capsys.readouterr().err
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST], env=env) == 0
    searches, ranks, compares = expected_requests(TEN_SCENARIO)
    assert len(server.requests) == searches + ranks + compares  # nothing paid for twice


@pytest.mark.slow
def test_past_a_screenful_the_decisions_go_to_a_file_in_the_run(tmp_path, standin_for, capsys) -> None:
    from quotefinder.standin import synthetic

    questions, scenario = synthetic.write(tmp_path / "data", 30, seed=2)
    server = standin_for(scenario)
    run_dir = tmp_path / "run"
    assert main([str(questions), "--run", str(run_dir), *FAST], env=env_for(server)) == 0
    out = capsys.readouterr().out
    assert f"decision: {run_dir / 'decisions.txt'} (--verbose prints them here)" in out
    assert "[1/30]" not in out and "Outcome    | Count" in out and len(out.splitlines()) < 20
    written = (run_dir / "decisions.txt").read_text()
    assert written.count("\n[") == 30 and "[30/30] item-29" in written
    before = run_files(run_dir)
    assert main([str(questions), "--run", str(run_dir), "--verbose"], env={}) == 0
    assert "[30/30] item-29" in capsys.readouterr().out
    assert run_files(run_dir) == before  # nothing sent, nothing rewritten


@pytest.mark.slow
def test_max_requests_says_which_questions_are_not_recorded_yet(tmp_path, standin_for, capsys) -> None:
    """A question the budget never reached did not fail and lacks more than its search: it is not recorded
    yet, and run.json says so (`pending`, and what stopped the recording) until a rerun records it."""
    server = standin_for(TEN_SCENARIO)
    run_dir = tmp_path / "run"
    env = env_for(server)
    args = [str(TEN_QUESTIONS), "--run", str(run_dir), *FAST, "--concurrency", "1"]
    assert main([*args, "--max-requests", "3"], env=env) == 2
    out = capsys.readouterr().out
    assert "missing the search" not in out and "failed" not in out
    assert out.count("not run: not recorded yet (stopped by --max-requests)") == 9
    assert "not run: partly recorded (stopped by --max-requests): missing the rank request for result" in out
    record = json.loads((run_dir / "run.json").read_text())
    assert record["complete"] is False and record["stopped"] == "max-requests"
    errors = {e["id"]: e for e in record["errors"]}
    assert len(errors) == 10 and errors["treaty-of-rome-ink"] == {
        "id": "treaty-of-rome-ink", "repeat": 0, "error": "not recorded yet (stopped by --max-requests)",
        "pending": True}
    assert errors["mariana-depth"]["error"].startswith("partly recorded (stopped by --max-requests): missing the "
                                                      "rank request for result")
    assert main(args, env=env) == 0
    record = json.loads((run_dir / "run.json").read_text())
    assert record["complete"] is True and record["errors"] == [] and "stopped" not in record


def with_stdout_closed(script: str, args: list[str], cwd: Path, env: dict[str, str], buffered: bool
                       ) -> subprocess.CompletedProcess[str]:
    """`python SCRIPT ARGS | head -1` at its most abrupt: the reader of stdout is gone before the first line
    is written, so every write fails. (A reader that goes after one line fails the writes after it the same
    way, but only when the output outgrows the pipe's buffer: a race, not a test.) `buffered` as on a pipe,
    or not (PYTHONUNBUFFERED), so that the failure comes at the final flush or at the first print."""
    read, write = os.pipe()
    os.close(read)
    child = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"} | env
    if not buffered:
        child["PYTHONUNBUFFERED"] = "1"
    try:
        return subprocess.run([sys.executable, str(ROOT / script), *args], stdout=write, stderr=subprocess.PIPE,
                              text=True, cwd=cwd, env=child, timeout=120)
    finally:
        os.close(write)


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
def test_the_demo_piped_into_a_reader_that_stops_early_ends_quietly(tmp_path, buffered) -> None:
    copy_run(ROOT / "runs" / "ten", tmp_path / "runs" / "ten")
    shutil.copytree(ROOT / "questions", tmp_path / "questions")
    before = run_files(tmp_path / "runs" / "ten")
    done = with_stdout_closed("eval.py", ["questions/ten.yaml"], tmp_path, {}, buffered)
    assert (done.returncode, done.stderr) == (141, "")  # no traceback, no message: 128 + SIGPIPE
    assert run_files(tmp_path / "runs" / "ten") == before


@pytest.mark.slow
@pytest.mark.parametrize("size", [10, 30])
def test_a_recording_piped_into_a_closed_reader_keeps_everything(tmp_path, standin_for, size) -> None:
    """The run is saved before the decisions are printed, and decisions.txt (past a screenful) before the
    table: a closed stdout loses nothing, and the next invocation has nothing left to send."""
    from quotefinder.standin import synthetic

    questions, scenario = (TEN_QUESTIONS, TEN_SCENARIO) if size == 10 else synthetic.write(tmp_path / "data", 30,
                                                                                         seed=2)
    server = standin_for(scenario)
    run_dir = tmp_path / "run"
    done = with_stdout_closed("eval.py", [str(questions), "--run", str(run_dir), *FAST], tmp_path, env_for(server),
                              buffered=False)
    assert (done.returncode, done.stderr) == (141, "")
    record = json.loads((run_dir / "run.json").read_text())
    assert record["complete"] is True and record["errors"] == []
    assert len(list((run_dir / "responses").rglob("*.json"))) == sum(expected_requests(scenario))
    if size > 20:
        assert (run_dir / "decisions.txt").read_text().count("\n[") == size
    sent, before = len(server.requests), run_files(run_dir)
    assert main([str(questions), "--run", str(run_dir), *FAST], env=env_for(server)) == 0
    assert len(server.requests) == sent and run_files(run_dir) == before


def test_the_front_door_names_the_exit_status_of_a_closed_stdout(capsys) -> None:
    from quotefinder.commands import main as quotefinder

    assert quotefinder(["--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "141 stdout was closed early (`| head`): it stopped quietly, and every file it wrote is whole" in text


@pytest.mark.parametrize(("key", "what"), [("pplx-abcé123", "a character that is not ASCII"),
                                           ("pplx-abc123\n", "a line break"), ("pplx-\tabc123", "a tab"),
                                           ("pplx-abc 123", "a space"), ("pplx-abc\x1b[2J", "a control character"),
                                           (" pplx-abc123", "a space"),
                                           ("pplx-abc\udce9defghijk", "a character that is not ASCII")])
def test_a_key_that_is_not_printable_ascii_is_refused_before_anything_is_sent(tmp_path, standin_for, capsys, key,
                                                                              what) -> None:
    server = standin_for(TEN_SCENARIO)
    env = {"PERPLEXITY_API_KEY": key, "PERPLEXITY_BASE_URL": server.base_url}
    assert main([str(TEN_QUESTIONS), "--run", str(tmp_path / "run"), *FAST], env=env) == 2
    err = capsys.readouterr().err
    assert "PERPLEXITY_API_KEY" in err and what in err and "nothing was sent" in err, err
    assert key.strip() not in err and "Traceback" not in err and "connection failed" not in err
    assert len(server.requests) == 0 and not (tmp_path / "run").exists()


# ---- --range and --pipeline ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_range_has_answer_is_exactly_has_answer_range(tmp_path, standin_for) -> None:
    server = standin_for(TEN_SCENARIO)
    assert main([str(TEN_QUESTIONS), "--run", str(tmp_path / "a"), *FAST, "--range", "has_answer=0.2:0.5"],
                env=env_for(server)) == 0
    first = sorted(json.dumps(body, sort_keys=True) for _, body in server.requests)  # sent concurrently
    server.api.requests.clear()
    assert main([str(TEN_QUESTIONS), "--run", str(tmp_path / "b"), *FAST, "--has-answer-range", "0.2:0.5"],
                env=env_for(server)) == 0
    assert sorted(json.dumps(body, sort_keys=True) for _, body in server.requests) == first
    a, b = (json.loads((tmp_path / name / "run.json").read_text()) for name in "ab")
    assert a["config"] == b["config"] and a["config"]["has_answer_range"] == [0.2, 0.5]
    assert {k for k in run_files(tmp_path / "a") if k.startswith("responses")} == \
        {k for k in run_files(tmp_path / "b") if k.startswith("responses")}


@pytest.mark.parametrize(("args", "message"), [
    (["--range", "answer=0.2:0.5"], "every ANSWER_CUTOFF is covered by any recording, so `answer` takes no --range"),
    (["--range", "has_anwser=0:1"], "the quote-finder system has no axis `has_anwser`; its axes are: has_answer, "
                                    "answer"),
    (["--range", "has_answer=0:1", "--range", "has_answer=0:0.5"], "given twice"),
    (["--range", "has_answer=0:1", "--has-answer-range", "0:1"], "--range has_answer=... is given twice"),
    (["--range", "has_answer"], "is not NAME=VALUES"),
    (["--range", "has_answer=0.5:0.2"], "need 0 <= START <= STOP <= 1"),
])
def test_a_bad_range_exits_2_naming_the_axes(tmp_path, args, message, capsys) -> None:
    assert main([str(TEN_QUESTIONS), "--run", str(tmp_path / "run"), *args], env={}) == 2
    assert message in capsys.readouterr().err and not (tmp_path / "run").exists()


def test_help_lists_the_axes_of_the_system_a_pipeline_names(tmp_path, capsys) -> None:
    assert main(["--help"]) == 0
    assert "the axes of the quote-finder system (--range NAME=...)" in capsys.readouterr().out
    assert main(["--pipeline", str(ROOT / "pipelines" / "quote-answer.yaml"), "--help"]) == 0
    text = capsys.readouterr().out
    assert "the axes of the quote-answer system" in text and "QUOTEANSWER_API_KEY" in text


@pytest.mark.parametrize(("text", "message"), [
    ("system: rag-reader\n", "x.yaml, line 1: unknown system `rag-reader`; the systems are: quote-finder, "
                              "quote-answer, one-shot"),
    ("name: x\nmodle: m\n", "x.yaml, line 2: unknown key `modle` (did you mean `model`?)"),
])
def test_a_bad_pipeline_file_exits_2_naming_its_line(tmp_path, text, message, capsys) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(text)
    assert main([str(TEN_QUESTIONS), "--run", str(tmp_path / "run"), "--pipeline", str(path)], env={}) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "run").exists()


def test_an_estimate_follows_the_pipelines_max_results(tmp_path, capsys) -> None:
    assert main([str(TEN_QUESTIONS), "--run", str(tmp_path / "run"), "--estimate", "--pipeline",
                 str(ROOT / "pipelines" / "terse-criteria.yaml")], env={}) == 0
    out = capsys.readouterr().out
    assert "at most 70 requests (10 question repeat(s)" in out  # 10 questions x (1 + 3 + 3)
    assert "3 results per search" in out


def test_python_dash_m_runs_both_aliases() -> None:
    """`python -m quotefinder.evalcmd` and `python -m quotefinder.sweepcmd` (how the benchmarks run them) run the
    command lines, not an empty module."""
    import subprocess
    import sys

    from conftest import ROOT

    for module, usage in (("quotefinder.evalcmd", "QUESTIONS"), ("quotefinder.sweepcmd", "RUN")):
        done = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0 and done.stdout.startswith("usage:") and usage in done.stdout, (module, done)
