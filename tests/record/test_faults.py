"""What survives what: network faults from the stand-in, interruptions, kill -9, a full disk, and
responses that break the API contract. Everything runs against the stand-in over loopback."""

from __future__ import annotations

import base64
import errno
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from conftest import (
    KEY,
    ROOT,
    TEN_QUESTIONS,
    TEN_SCENARIO,
    env_for,
    expected_requests,
    record,
    run_files,
    write_questions,
)
from hostile import ODD_KEY, key_forms
from quotefinder.core.requests import ApiRequest
from quotefinder.evalcmd import main
from quotefinder.recipe import contract
from quotefinder.record import cache
from quotefinder.record.cache import decode_entry
from quotefinder.standin import SYNTHETIC_HEADERS, FakeApi, Faults, Reply, load_scenario
from quotefinder.standin.server import bearer
from quotefinder.sweepcmd import main as sweep_main

pytestmark = pytest.mark.faults

TOTAL = sum(expected_requests(TEN_SCENARIO))
FAST_RETRIES = ["--rate", "0", "--retries", "20", "--backoff", "0.01"]


def saved(run_dir: Path) -> set[str]:
    """Keys of every entry in the run, each checked whole: integrity, key, and the API contract."""
    keys = set()
    for path in (run_dir / "responses").rglob("*.json"):
        entry = decode_entry(path.read_bytes(), path)
        request = ApiRequest(entry["endpoint"], entry["request"], entry["repeat"])
        assert request.key == entry["key"] == path.stem
        contract.check(request, entry["response"])
        keys.add(path.stem)
    return keys


def served_keys(server, since: int = 0) -> set[str]:
    return {ApiRequest(path, body).key for path, body in server.requests[since:]}


def test_transient_faults_are_retried_until_the_run_completes(tmp_path, standin_for, capsys) -> None:
    faults = Faults(server_errors=0.15, drops=0.1, truncated=0.1, seed=7)
    server = standin_for(TEN_SCENARIO, faults=faults)
    run_dir = tmp_path / "run"
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST_RETRIES], env=env_for(server)) == 0
    assert {"server_errors", "drops", "truncated"} <= set(server.injected)
    assert len(saved(run_dir)) == TOTAL
    captured = capsys.readouterr()
    assert KEY not in captured.out + captured.err
    assert all(KEY.encode() not in path.read_bytes() for path in run_dir.rglob("*") if path.is_file())
    record_ = json.loads((run_dir / "run.json").read_text())
    assert record_["complete"] and record_["requests"]["retries"] >= sum(server.injected.values()) - 2


def test_responses_slower_than_the_timeout_are_retried(tmp_path, standin_for) -> None:
    server = standin_for(TEN_SCENARIO, faults=Faults(stalls=0.1, stall_s=1.0, seed=3))
    run_dir = tmp_path / "run"
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST_RETRIES, "--timeout", "0.3"],
                env=env_for(server)) == 0
    assert server.injected.get("stalls", 0) > 0 and len(saved(run_dir)) == TOTAL


def test_a_rate_limit_is_honoured_through_retry_after(tmp_path, standin_for) -> None:
    server = standin_for(TEN_SCENARIO, faults=Faults(rate_limit=20, burst=2))
    text = TEN_QUESTIONS.read_text()
    three = write_questions(tmp_path / "three.yaml", text[: text.index("  - id: voyager-heliopause")])
    run_dir = tmp_path / "run"
    started = time.monotonic()
    assert main([str(three), "--run", str(run_dir), "--rate", "0", "--retries", "30", "--backoff", "0"],
                env=env_for(server)) == 0
    assert server.injected["rate_limited"] > 0 and len(saved(run_dir)) == len(server.requests)
    assert time.monotonic() - started >= 1.0  # a 429 says Retry-After: 1, and the client waited for it


def test_an_html_200_is_an_error_never_cached_and_a_rerun_finishes(tmp_path, standin_for, capsys) -> None:
    broken = standin_for(TEN_SCENARIO, faults=Faults(html=0.25, seed=1))
    run_dir = tmp_path / "run"
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST_RETRIES], env=env_for(broken)) == 2
    record_ = json.loads((run_dir / "run.json").read_text())
    assert not record_["complete"] and all("not JSON" in e["error"] for e in record_["errors"])
    before = saved(run_dir)  # every saved entry is a whole, valid response: no error was cached
    healthy = standin_for(TEN_SCENARIO)
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST_RETRIES], env=env_for(healthy)) == 0
    assert not served_keys(healthy) & before and len(saved(run_dir)) == TOTAL


def test_a_refused_key_sends_no_more_than_what_was_already_in_flight(tmp_path, standin_for, capsys) -> None:
    attempts = []
    lock = threading.Lock()

    def count(path: str, body: dict) -> None:
        with lock:
            attempts.append(path)

    server = standin_for(TEN_SCENARIO, key="the-real-key", fault=count)
    assert main([str(TEN_QUESTIONS), "--run", str(tmp_path / "run"), *FAST_RETRIES, "--concurrency", "4"],
                env=env_for(server)) == 2
    assert len(attempts) <= 4 and "was refused" in capsys.readouterr().err


BREAKAGES = {
    "bones": ("rank", lambda p: p["answers"]["best"].update(choice="99"), "not one of the numbered sentences"),
    "rosetta-stone": ("rank", lambda p: p["answers"]["has_answer"].update(noul=1.5), "outside [0, 1]"),
    "hubble-launch": ("compare", lambda p: p.update(answers={k.replace("answers", "answer"): v
                                                             for k, v in p["answers"].items()}), "has no `answers_1`"),
    "sunlight-travel": ("search", lambda p: p["results"][0].pop("url"), "search result 1 has no `url`"),
    "mariana-depth": ("rank", lambda p: p.pop("usage"), "has no `usage`"),
    "voyager-heliopause": ("rank", lambda p: p["answers"].pop("has_answer"), "has no `has_answer`"),
}


def test_responses_that_break_the_contract_become_errors_of_their_question(tmp_path, standin_for, capsys) -> None:
    texts = {q["id"]: q["question"] for q in json.loads((ROOT / "runs/ten/run.json").read_text())["questions"]}
    server = None

    def corrupt(path: str, body: dict) -> Reply | None:
        question = body.get("query") or body.get("state", {}).get("question")
        for qid, (kind, damage, _) in BREAKAGES.items():
            is_kind = {"search": path == "/search", "rank": "best" in body.get("questions", {}),
                       "compare": path != "/search" and "best" not in body.get("questions", {})}[kind]
            if question == texts[qid] and is_kind:
                status, payload = server.api.respond(path, json.dumps(body).encode(), KEY)
                damage(payload)
                return Reply(200, json.dumps(payload).encode(), (("Content-Type", "application/json"),))
        return None

    server = standin_for(TEN_SCENARIO, fault=corrupt)
    run_dir = tmp_path / "run"
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST_RETRIES], env=env_for(server)) == 2
    errors = {e["id"]: e["error"] for e in json.loads((run_dir / "run.json").read_text())["errors"]}
    assert set(errors) == set(BREAKAGES)
    for qid, (_, _, message) in BREAKAGES.items():
        assert message in errors[qid], (qid, errors[qid])
    out = capsys.readouterr().out
    assert "not run: " in out and "Outcome    | Count" in out and "not run    |     6" in out
    saved(run_dir)  # nothing broken was saved

    assert sweep_main([str(run_dir), "--out", str(tmp_path / "r"), "--no-plots"]) == 2
    assert sweep_main([str(run_dir), "--out", str(tmp_path / "r"), "--no-plots", "--allow-incomplete"]) == 0
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert summary.startswith("**Incomplete: 6 question(s)")


def start_eval(run_dir: Path, server, *options: str) -> subprocess.Popen:
    env = {**os.environ, "PERPLEXITY_API_KEY": KEY, "PERPLEXITY_BASE_URL": server.base_url}
    command = [sys.executable, str(ROOT / "eval.py"), str(TEN_QUESTIONS), "--run", str(run_dir), "--rate", "0",
               *options]
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_entries(run_dir: Path, count: int, process: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if len(list((run_dir / "responses").rglob("*.json"))) >= count:
            return
        time.sleep(0.02)
    raise AssertionError(f"the recording did not reach {count} entries in time")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_keeps_every_response_and_the_rerun_resumes(tmp_path, standin_for, sig) -> None:
    server = standin_for(TEN_SCENARIO, faults=Faults(latency_s=0.1))
    run_dir = tmp_path / "run"
    process = start_eval(run_dir, server, "--concurrency", "2")
    wait_for_entries(run_dir, 10, process)
    process.send_signal(sig)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 2, err
    assert "rerun to resume" in err and KEY not in out + err
    record_ = json.loads((run_dir / "run.json").read_text())
    assert record_["complete"] is False and record_["errors"]
    assert record_["stopped"] == "interrupt" and all(e["pending"] for e in record_["errors"])
    for error in record_["errors"]:  # says what each still lacks, and that nothing failed
        assert (error["error"] == "not recorded yet (interrupted)"
                or error["error"].startswith("partly recorded (interrupted): missing the")), error
    kept = saved(run_dir)
    assert 10 <= len(kept) < TOTAL
    mark = len(server.requests)
    assert record(run_dir, TEN_QUESTIONS, server) == 0
    assert not served_keys(server, mark) & kept and len(saved(run_dir)) == TOTAL


def test_kill_9_at_random_moments_never_corrupts_the_cache(tmp_path, standin_for) -> None:
    server = standin_for(TEN_SCENARIO, faults=Faults(latency_s=0.02))
    run_dir = tmp_path / "run"
    rng = random.Random(2026)
    for _ in range(6):
        before, mark = (saved(run_dir) if run_dir.exists() else set()), len(server.requests)
        process = start_eval(run_dir, server, "--concurrency", "8")
        time.sleep(rng.uniform(0.05, 0.6))
        process.kill()
        process.communicate(timeout=30)
        assert not served_keys(server, mark) & before  # nothing saved was asked for again
        if (run_dir / "run.json").exists():
            json.loads((run_dir / "run.json").read_text())  # always whole
        saved(run_dir)  # every entry whole and valid, whatever moment the kill hit
    assert record(run_dir, TEN_QUESTIONS, server) == 0
    assert len(saved(run_dir)) == TOTAL and not list(run_dir.rglob("*.tmp"))


def test_a_rerun_with_nothing_left_to_record_removes_what_a_killed_writer_left(tmp_path, standin_for) -> None:
    """A recording killed while it wrote run.json, after its last response was saved, leaves a temporary file; the
    rerun has nothing to record, and still removes it (and any other a killed writer left), sending nothing."""
    server = standin_for(TEN_SCENARIO)
    run_dir = tmp_path / "run"
    assert record(run_dir, TEN_QUESTIONS, server) == 0
    left = [run_dir / ".run.json.4194303.tmp", next((run_dir / "responses").iterdir()) / ".x.json.4194303.tmp"]
    for path in left:
        path.write_bytes(b"{\"format\"")  # (pid 4194303: above any Linux pid, so no live writer's)
    mark = len(server.requests)
    assert record(run_dir, TEN_QUESTIONS, server) == 0
    assert len(server.requests) == mark and not list(run_dir.rglob("*.tmp")) and len(saved(run_dir)) == TOTAL


def test_a_torn_or_edited_entry_is_requested_again_or_reported(tmp_path, standin_for, capsys) -> None:
    server = standin_for(TEN_SCENARIO)
    run_dir = tmp_path / "run"
    assert record(run_dir, TEN_QUESTIONS, server) == 0
    victim = sorted((run_dir / "responses").rglob("*.json"))[3]
    victim.write_bytes(victim.read_bytes().replace(b'"noul": 0.', b'"noul": 1.'))
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), "--offline"], env={}) == 2
    err = capsys.readouterr().err
    assert "missing a usable entry" in err and "checksum mismatch" in err
    assert sweep_main([str(run_dir), "--out", str(tmp_path / "r"), "--no-plots"]) == 2
    assert str(victim) in capsys.readouterr().err
    mark = len(server.requests)
    assert record(run_dir, TEN_QUESTIONS, server) == 0
    assert served_keys(server, mark) == {victim.stem} and len(saved(run_dir)) == TOTAL


def test_a_full_disk_stops_the_recording_cleanly(tmp_path, standin_for, monkeypatch, capsys) -> None:
    server = standin_for(TEN_SCENARIO)
    run_dir = tmp_path / "run"
    real_write, writes = os.write, []

    def write(fd: int, data) -> int:
        writes.append(len(data))
        if len(writes) > 12:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(cache.os, "write", write)
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), "--rate", "0"], env=env_for(server)) == 2
    err = capsys.readouterr().err.lower()
    assert "no space left on device" in err and "free some space" in err
    assert not list(run_dir.rglob("*.tmp"))
    kept = saved(run_dir)
    assert 0 < len(kept) < TOTAL and json.loads((run_dir / "run.json").read_text())["complete"] is False
    monkeypatch.setattr(cache.os, "write", real_write)
    mark = len(server.requests)
    assert record(run_dir, TEN_QUESTIONS, server) == 0
    assert not served_keys(server, mark) & kept and len(saved(run_dir)) == TOTAL


def test_a_real_full_filesystem(tmp_path, standin_for, capsys) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=40k", "tmpfs", str(disk)],
                                           capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small tmpfs here")
    try:
        server = standin_for(TEN_SCENARIO)
        assert main([str(TEN_QUESTIONS), "--run", str(disk / "run"), "--rate", "0"], env=env_for(server)) == 2
        assert "No space left on device" in capsys.readouterr().err
        assert not list(disk.rglob("*.tmp"))
        saved(disk / "run")
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_an_unusable_run_directory_is_a_clear_error(tmp_path, standin_for, capsys) -> None:
    server = standin_for(TEN_SCENARIO)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert main([str(TEN_QUESTIONS), "--run", str(blocker / "run"), "--rate", "0"], env=env_for(server)) == 2
    assert "cannot create or open the run directory" in capsys.readouterr().err
    assert server.count("/search") == 0
    clutter = tmp_path / "clutter"
    clutter.mkdir()
    (clutter / "notes.txt").write_text("mine")
    assert main([str(TEN_QUESTIONS), "--run", str(clutter)], env=env_for(server)) == 2
    assert sweep_main([str(clutter)]) == 2
    assert capsys.readouterr().err.count("not a run") == 2


def test_a_run_of_another_format_version_is_refused(tmp_path, capsys) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    data = json.loads((ROOT / "runs/ten/run.json").read_text())
    (run_dir / "run.json").write_text(json.dumps({**data, "cache_format": "quotefinder-cache/0"}))
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir)], env={}) == 2
    assert "cache format 'quotefinder-cache/0'" in capsys.readouterr().err


def test_stale_temporary_files_are_tidied_by_the_next_recording(tmp_path, standin_for) -> None:
    server = standin_for(TEN_SCENARIO)
    run_dir = tmp_path / "run"
    assert record(run_dir, TEN_QUESTIONS, server) == 0
    shard = next((run_dir / "responses").iterdir())
    (shard / ".abc.json.999.tmp").write_text('{"sha256": "torn')
    extra = write_questions(tmp_path / "q.yaml", TEN_QUESTIONS.read_text()
                            + "  - {id: new, question: A new question?, expect: no-answer}\n")
    assert record(run_dir, extra, server) == 0
    assert not list(run_dir.rglob("*.tmp"))


# ---- a server that echoes the key ------------------------------------------------------------------

def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# Which question echoes the key where: (which of its requests, how). Every question but mariana-depth fails.
ECHOES = {
    "mariana-depth": ("any", "request-id"),  # redacted and saved: the question completes
    "sunlight-travel": ("search", lambda key: {"echo": key}),
    "bones": ("search", lambda key: {"next": "https://api.example/?k=" + urllib.parse.quote(key, safe="")}),
    "voyager-heliopause": ("search", lambda key: {"form": "key=" + urllib.parse.quote_plus(key)}),
    "rosetta-stone": ("search", lambda key: {"auth": b64(f"Bearer {key}")}),
    "hubble-launch": ("rank", lambda key: {"debug": {"key": b64(key)}}),
    "hubble-mirror-bolts": ("search", "400-json"),
    "voyager-checklist-pages": ("search", "400-base64"),
    "eiffel-rivets": ("rank", "choice"),  # a value the contract check would quote in its message
    "treaty-of-rome-ink": ("search", "content-type"),
}


class Hostile(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256


@pytest.fixture
def hostile():
    """Start a server on loopback that answers like the stand-in but echoes the bearer key it receives in the
    places `ECHOES` names (echo=False: a well-behaved copy); stopped at teardown."""
    texts = {q["id"]: q["question"] for q in json.loads((ROOT / "runs/ten/run.json").read_text())["questions"]}
    servers = []

    def start(echo: bool = True) -> str:
        api = FakeApi(load_scenario(TEN_SCENARIO))
        by_text = {texts[qid]: how for qid, how in ECHOES.items()} if echo else {}

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                key = bearer(self.headers.get("Authorization"))
                body = json.loads(raw)
                question = body.get("query") or body.get("state", {}).get("question")
                kind = "search" if self.path == "/search" else "rank" if "best" in body["questions"] else "compare"
                status, payload = api.respond(self.path, raw, key)
                headers = {**SYNTHETIC_HEADERS, "Content-Type": "application/json",
                           "x-request-id": payload.get("id", "")}
                which, how = by_text.get(question, ("", None))
                if which in (kind, "any"):
                    if how == "request-id":
                        headers["x-request-id"] = key
                    elif how == "400-json":
                        status, payload = 400, {"error": {"message": f"malformed Authorization: Bearer {key}"}}
                    elif how == "400-base64":
                        status, payload = 400, {"error": f"unknown credentials {b64('Bearer ' + key)}"}
                    elif how == "choice":
                        payload["answers"]["best"]["choice"] = key
                    elif how == "content-type":
                        headers["Content-Type"] = f"text/html; key={key}"
                    else:
                        payload.update(how(key))
                data = (b"<html>hello</html>" if headers["Content-Type"].startswith("text/html")
                        else json.dumps(payload).encode())
                self.send_response(status)
                for name, value in {**headers, "Content-Length": str(len(data))}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        server = Hostile(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_a_server_echoing_the_key_never_gets_it_into_a_file_or_the_terminal(tmp_path, hostile, capsys) -> None:
    run_dir = tmp_path / "run"
    env = {"PERPLEXITY_API_KEY": ODD_KEY, "PERPLEXITY_BASE_URL": hostile()}
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST_RETRIES], env=env) == 2
    captured = capsys.readouterr()
    files = {path: path.read_bytes() for path in run_dir.rglob("*") if path.is_file()}
    for form in key_forms(ODD_KEY):
        assert form not in captured.out + captured.err, form
        assert not [path for path, data in files.items() if form.encode() in data], form
    errors = {e["id"]: e["error"] for e in json.loads((run_dir / "run.json").read_text())["errors"]}
    assert set(errors) == set(ECHOES) - {"mariana-depth"}
    for qid in ("sunlight-travel", "bones", "voyager-heliopause", "rosetta-stone"):
        assert "/search" in errors[qid] and "echoes the API key" in errors[qid], errors[qid]
    assert "/v1/decisions" in errors["hubble-launch"] and "the rank request for result" in errors["hubble-launch"]
    assert "echoes the API key" in errors["hubble-launch"]
    assert "returned 400" in errors["hubble-mirror-bolts"] and "returned 400" in errors["voyager-checklist-pages"]
    assert "echoes the API key" in errors["eiffel-rivets"]  # refused before the contract check could quote it
    assert "not JSON" in errors["treaty-of-rome-ink"]
    ids = {decode_entry(data, path)["request_id"] for path, data in files.items()
           if path.parent.parent.name == "responses"}
    assert "[key]" in ids  # mariana-depth's entries, saved with the request id blanked
    assert "  not run: 127.0.0.1/search: the response to the search echoes the API key" in captured.out
    assert "not run    |     9" in captured.out  # and mariana-depth has its decision


def test_a_server_that_echoes_nothing_records_the_odd_key_run_as_before(tmp_path, hostile, capsys) -> None:
    run_dir = tmp_path / "run"
    env = {"PERPLEXITY_API_KEY": ODD_KEY, "PERPLEXITY_BASE_URL": hostile(echo=False)}
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST_RETRIES], env=env) == 0
    assert len(saved(run_dir)) == TOTAL and json.loads((run_dir / "run.json").read_text())["errors"] == []


def test_a_placeholder_key_that_page_text_contains_is_no_echo(tmp_path, standin_for) -> None:
    """The stand-in takes any key (`PERPLEXITY_API_KEY=any`): "many" in a page is not an echo of it."""
    server = standin_for(TEN_SCENARIO)
    run_dir = tmp_path / "run"
    env = {"PERPLEXITY_API_KEY": "any", "PERPLEXITY_BASE_URL": server.base_url}
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST_RETRIES], env=env) == 0
    assert len(saved(run_dir)) == TOTAL


# ---- inputs that break a parser --------------------------------------------------------------------

@pytest.mark.parametrize("text", ["[" * 200_000,
                                  '{"format": "quotefinder-run/1", "questions": ' + "[" * 5000 + "]" * 5000 + "}"],
                         ids=["nested", "nested-questions"])
def test_a_deeply_nested_run_record_is_refused_naming_it(tmp_path, text, capsys) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "run.json").write_text(text)
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir)], env={}) == 2
    assert sweep_main([str(run_dir), "--out", str(tmp_path / "r"), "--no-plots"]) == 2
    err = capsys.readouterr().err
    assert err.count(f"{run_dir / 'run.json'}: ") == 2 and "nested" in err and "Traceback" not in err


def test_a_response_nested_too_deeply_to_save_is_an_error_of_its_question(tmp_path, standin_for, capsys) -> None:
    bones = json.loads((ROOT / "runs/ten/run.json").read_text())["questions"][2]
    server = None

    def deep(path: str, body: dict) -> Reply | None:
        if body.get("query") != bones["question"]:
            return None
        status, payload = server.api.respond(path, json.dumps(body).encode(), KEY)
        text = json.dumps(payload)[:-1] + ', "trace": ' + "[" * 300 + "]" * 300 + "}"
        return Reply(200, text.encode(), (("Content-Type", "application/json"),))

    server = standin_for(TEN_SCENARIO, fault=deep)
    run_dir = tmp_path / "run"
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST_RETRIES], env=env_for(server)) == 2
    errors = {e["id"]: e["error"] for e in json.loads((run_dir / "run.json").read_text())["errors"]}
    assert list(errors) == [bones["id"]] and "/search" in errors[bones["id"]] and "nested" in errors[bones["id"]]
    assert "Traceback" not in capsys.readouterr().err
    saved(run_dir)  # every entry that was saved is whole and valid


def test_a_quote_answer_server_echoing_its_key_gets_nothing_saved_and_never_shows_it(tmp_path, standin_for,
                                                                                    capsys) -> None:
    def echo(path: str, body: dict) -> Reply:
        return Reply(200, json.dumps({"answer": "", "sources": [], "passages": [], "considered": 0, "pages_read": 0,
                                      "usage": {"answers": 1}, "message": f"bad key {ODD_KEY}"}).encode())

    server = standin_for(TEN_SCENARIO, fault=echo)
    run_dir = tmp_path / "run"
    pipeline = tmp_path / "qa.yaml"
    pipeline.write_text("system: quote-answer\n", encoding="utf-8")
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), "--pipeline", str(pipeline), *FAST_RETRIES],
                env={"QUOTEANSWER_API_KEY": ODD_KEY, "QUOTEANSWER_BASE_URL": server.base_url}) == 2
    captured = capsys.readouterr()
    err = captured.out + captured.err
    said = json.loads((run_dir / "run.json").read_text())["errors"][0]["error"]
    assert "echoes the API key it was sent with (QUOTEANSWER_API_KEY" in said and "check QUOTEANSWER_BASE_URL" in said
    assert "echoes the API key" in err
    assert not (run_dir / "responses").exists() or not any((run_dir / "responses").rglob("*.json"))
    files = b"".join(run_files(run_dir).values()).decode("utf-8", "replace")
    assert not any(form in err or form in files for form in key_forms(ODD_KEY))
