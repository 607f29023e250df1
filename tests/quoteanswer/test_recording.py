"""The quote-answer system recorded through the same cache as the quote finder: what is read from its responses
(and refused, uncached), run.json, faults, a resume, and the key. All against the stand-in over loopback. (Its
request body and pipeline file are tests/quoteanswer/test_config.py's, its response reader test_contract.py's.)"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import KEY, TEN_QUESTIONS, TEN_SCENARIO, run_files, write_questions
from quotefinder.evalcmd import main
from quotefinder.questions import load_questions
from quotefinder.quoteanswer import contract
from quotefinder.quoteanswer.config import DEFAULT
from quotefinder.record.cache import decode_entry
from quotefinder.record.rundir import RunRecord
from quotefinder.standin import FakeApi, Faults, Reply, load_scenario

FAST = ["--rate", "0", "--retries", "20", "--backoff", "0.01"]
QUESTIONS = len(load_questions(TEN_QUESTIONS).questions)


def pipeline_file(tmp_path: Path, text: str = "") -> Path:
    path = tmp_path / "quote-answer.yaml"
    path.write_text("system: quote-answer\n" + text, encoding="utf-8")
    return path


def env_for(server, key: str = KEY) -> dict[str, str]:
    return {"QUOTEANSWER_API_KEY": key, "QUOTEANSWER_BASE_URL": server.base_url}


def entries(run_dir: Path) -> list[dict]:
    return [decode_entry(p.read_bytes(), p) for p in sorted((run_dir / "responses").rglob("*.json"))]


def test_the_stand_in_serves_answers_that_hold_the_contract() -> None:
    api = FakeApi(load_scenario(TEN_SCENARIO))
    for question in load_questions(TEN_QUESTIONS).questions:
        for tier in contract.TIERS:
            for passages in (1, 5, 12):
                status, payload = api.respond("/api/answer", json.dumps(DEFAULT.request(
                    question.question, passages, tier).body).encode(), KEY)
                assert status == 200
                answer = contract.read_answer(payload)
                assert len(answer.passages) <= passages and (bool(answer.text) == bool(answer.passages))
    status, payload = api.respond("/api/answer", b'{"query": "q", "tier": "fast"}', KEY)
    assert status == 400 and "unknown tier" in payload["error"]["message"]


def test_record_every_configuration_then_replay_it_from_the_cache_alone(tmp_path, standin_for, capsys) -> None:
    server = standin_for(TEN_SCENARIO)
    run_dir = tmp_path / "run"
    argv = [str(TEN_QUESTIONS), "--run", str(run_dir), "--pipeline", str(pipeline_file(tmp_path)),
            "--range", "passages=1:3", "--range", "tier=instant,deep", *FAST]
    assert main(argv, env=env_for(server)) == 0
    configurations = 4 * 2  # passages 1, 2, 3 and the default 5, each at both tiers: the grid they span
    assert server.count("/api/answer") == QUESTIONS * configurations == len(entries(run_dir))
    record = RunRecord.require(run_dir)
    assert record.config.system == "quote-answer" and record.synthetic and record.complete
    data = json.loads((run_dir / "run.json").read_text())["config"]
    assert data["ranges"] == {"passages": [1, 2, 3, 5], "tier": ["instant", "deep"]}  # the default 5 too
    assert "has_answer_cutoff" not in data and data["pipeline"]["tier"] == "instant"
    out = capsys.readouterr().out
    assert "At passages 5, tier instant (synthetic):" in out
    before = run_files(run_dir)
    sent = server.count("/api/answer")
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), "--offline"], env={}) == 0  # its own pipeline, offline
    assert server.count("/api/answer") == sent and run_files(run_dir) == before


def test_faults_are_retried_and_a_stopped_recording_resumes_without_paying_twice(tmp_path, standin_for) -> None:
    """Server errors and dropped connections are retried; a recording stopped by --max-requests resumes, without
    --pipeline or --range, from what run.json says it was recording, and no answer the API delivered is asked for
    again (the stand-in counts every 200 it sent; a fault never reaches that point)."""
    server = standin_for(TEN_SCENARIO, faults=Faults(server_errors=0.15, drops=0.1, seed=3))
    run_dir = tmp_path / "run"
    first = [str(TEN_QUESTIONS), "--run", str(run_dir), "--pipeline", str(pipeline_file(tmp_path)),
             "--range", "passages=2,4", "--max-requests", "7", *FAST]
    assert main(first, env=env_for(server)) == 2
    record = RunRecord.require(run_dir)
    assert not record.complete and record.config.covered == {"passages": (2.0, 4.0, 5.0), "tier": (0.0,)}
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), *FAST], env=env_for(server)) == 0  # resumed as it was
    assert RunRecord.require(run_dir).complete
    assert len(entries(run_dir)) == server.count("/api/answer") == QUESTIONS * 3  # passages 2, 4, 5: each once
    assert {"server_errors", "drops"} <= set(server.injected)


def test_a_run_is_extended_with_its_own_system_without_a_pipeline_file(tmp_path, standin_for, capsys) -> None:
    server = standin_for(TEN_SCENARIO)
    run_dir = tmp_path / "run"
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), "--pipeline", str(pipeline_file(tmp_path)), *FAST],
                env=env_for(server)) == 0
    assert main(["--run", str(run_dir), "--help"]) == 0
    assert "the axes of the quote-answer system" in capsys.readouterr().out
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), "--range", "tier=deep", *FAST], env=env_for(server)) == 0
    assert server.count("/api/answer") == QUESTIONS * 2  # the default, then the deep tier added
    assert RunRecord.require(run_dir).config.covered["tier"] == (0.0, 1.0)
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), "--range", "tier=fast"], env=env_for(server)) == 2
    assert "tier takes instant, deep, deep_reasoning" in capsys.readouterr().err



def test_a_response_that_breaks_the_contract_is_an_error_of_its_question_and_never_cached(
        tmp_path, standin_for, capsys) -> None:
    broken = json.dumps({"answer": "x [4]", "sources": [], "passages": [], "considered": 0, "pages_read": 0,
                         "usage": {"answers": 1}}).encode()

    def fault(path: str, body: dict) -> Reply | None:
        return Reply(200, broken) if body.get("query", "").startswith("How deep") else None

    server = standin_for(TEN_SCENARIO, fault=fault)
    run_dir = tmp_path / "run"
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), "--pipeline", str(pipeline_file(tmp_path)), *FAST],
                env=env_for(server)) == 2
    assert len(entries(run_dir)) == QUESTIONS - 1
    assert "cites [4], which resolves to no source" in json.dumps(json.loads((run_dir / "run.json").read_text()))
    assert "not run" in capsys.readouterr().out


def twelve_passages(body: dict) -> dict:
    texts = [f"Passage {k} of the page." for k in range(1, 13)]
    return {"answer": "\n\n".join(f"{text} [1]" for text in texts),
            "sources": [{"n": 1, "title": "Page", "url": "https://a.example"}],
            "passages": [{"source": 1, "text": text} for text in texts], "considered": 40, "pages_read": 1,
            "usage": {"answers": 1}}


HOSTILE_ANSWERS = {  # question id: (what the API sends instead, the error of that question)
    "mariana-depth": (lambda payload, body: payload.update(answer=payload["answer"] + f" [{'9' * 5000}]"),
                      "cites [99999999... (5000 digits)], which resolves to no source"),
    "bones": (lambda payload, body: payload.update(twelve_passages(body)),
              "the answer carries 12 passages where 5 were asked for"),
}


def test_a_hostile_answer_is_an_error_of_its_question_and_the_recording_goes_on(tmp_path, standin_for) -> None:
    """Over loopback: a marker of 5,000 digits (never made an integer) and 12 passages for the 5 asked are each an
    error of their question, named in run.json; nothing of theirs is cached, and the other questions are."""
    ids = {q.question: q.id for q in load_questions(TEN_QUESTIONS).questions}
    server = None

    def fault(path: str, body: dict) -> Reply | None:
        if ids.get(body.get("query")) not in HOSTILE_ANSWERS:
            return None
        status, payload = server.api.respond(path, json.dumps(body).encode(), KEY)
        HOSTILE_ANSWERS[ids[body["query"]]][0](payload, body)
        return Reply(200, json.dumps(payload).encode(), (("Content-Type", "application/json"),))

    server = standin_for(TEN_SCENARIO, fault=fault)
    run_dir = tmp_path / "run"
    argv = [str(TEN_QUESTIONS), "--run", str(run_dir), "--pipeline", str(pipeline_file(tmp_path)), *FAST]
    assert main(argv, env=env_for(server)) == 2
    errors = {e.id: e.error for e in RunRecord.require(run_dir).errors}
    assert errors.keys() == HOSTILE_ANSWERS.keys()
    for qid, (_, problem) in HOSTILE_ANSWERS.items():
        assert problem in errors[qid]
    assert len(entries(run_dir)) == QUESTIONS - len(HOSTILE_ANSWERS) and server.count("/api/answer") == QUESTIONS
    assert main(argv, env=env_for(server)) == 2  # the rerun: each is its question's error again, not paid again
    assert server.count("/api/answer") == QUESTIONS and len(entries(run_dir)) == QUESTIONS - len(HOSTILE_ANSWERS)
    again = {e.id: e.error for e in RunRecord.require(run_dir).errors}
    assert again.keys() == HOSTILE_ANSWERS.keys() and all("not asked for again" in e for e in again.values())
    for qid, (_, problem) in HOSTILE_ANSWERS.items():
        assert problem in again[qid]
    shutil.rmtree(run_dir / "refused")  # what the message says to do to ask again
    assert main(argv, env=env_for(server)) == 2 and server.count("/api/answer") == QUESTIONS + len(HOSTILE_ANSWERS)


def test_the_key_is_its_own_variable_and_never_reaches_a_file(tmp_path, standin_for, capsys) -> None:
    server = standin_for(TEN_SCENARIO)
    run_dir = tmp_path / "run"
    argv = [str(TEN_QUESTIONS), "--run", str(run_dir), "--pipeline", str(pipeline_file(tmp_path)), *FAST]
    assert main(argv, env={"PERPLEXITY_API_KEY": KEY, "QUOTEANSWER_BASE_URL": server.base_url}) == 2
    assert "QUOTEANSWER_API_KEY is not set" in capsys.readouterr().err and server.count("/api/answer") == 0
    assert main(argv, env={"QUOTEANSWER_API_KEY": KEY}) == 2
    assert "QUOTEANSWER_BASE_URL is not set" in capsys.readouterr().err
    assert main(argv, env={"QUOTEANSWER_API_KEY": KEY, "QUOTEANSWER_BASE_URL": "http://example.org"}) == 2
    assert "QUOTEANSWER_BASE_URL 'http://example.org' is plain http" in capsys.readouterr().err
    assert main(argv, env=env_for(server)) == 0
    assert all(KEY.encode() not in data for data in run_files(run_dir).values())
    captured = capsys.readouterr()
    assert KEY not in captured.out + captured.err


def test_a_long_question_is_an_error_of_that_question_alone(tmp_path, standin_for) -> None:
    questions = write_questions(tmp_path / "q.yaml", f"""\
        questions:
          - id: long
            question: "{'why ' * 130}?"
            expect: no-answer
          - id: short
            question: How deep is the Mariana Trench?
            expect: answer
            accept: ["10,9\\\\d\\\\d"]
        """)
    server = standin_for(TEN_SCENARIO)
    run_dir = tmp_path / "run"
    assert main([str(questions), "--run", str(run_dir), "--pipeline", str(pipeline_file(tmp_path)), *FAST],
                env=env_for(server)) == 2
    record = RunRecord.require(run_dir)
    assert [e.id for e in record.errors] == ["long"] and "takes at most 512" in record.errors[0].error
    assert server.count("/api/answer") == 1


@pytest.mark.parametrize(("edit", "message"), [
    (lambda c: c["ranges"].update(colour=["red"]), "quote-answer has no axis 'colour'; its axes are: passages, tier"),
    (lambda c: c["ranges"].update(tier=["fast"]), "`config.ranges.tier`: 'fast' is not one of instant, deep"),
    (lambda c: c["ranges"].update(passages=[13]), "`config.ranges.passages`: 13 is not a whole number from 1 to 12"),
    (lambda c: c["ranges"].update(passages=4), "`config.ranges.passages` is 4, not a list of the values recorded"),
    (lambda c: c["pipeline"].update(tier="deep"), "`config.pipeline_digest` is .* run.json was edited"),
    (lambda c: c["pipeline"].pop("limit"), "`config.pipeline`: the pipeline has no `limit`"),
    (lambda c: c.pop("pipeline"), "`config.pipeline` is missing"),
])
def test_a_quote_answer_run_json_that_does_not_hold_together_is_refused(tmp_path, standin_for, edit,
                                                                       message: str) -> None:
    from quotefinder.core.errors import RunDirError

    server = standin_for(TEN_SCENARIO)
    run_dir = tmp_path / "run"
    assert main([str(TEN_QUESTIONS), "--run", str(run_dir), "--pipeline", str(pipeline_file(tmp_path)), *FAST],
                env=env_for(server)) == 0
    data = json.loads((run_dir / "run.json").read_text())
    edit(data["config"])
    (run_dir / "run.json").write_text(json.dumps(data))
    with pytest.raises(RunDirError, match=message):
        RunRecord.require(run_dir)
