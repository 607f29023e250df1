"""A variant pipeline recorded end to end against the stand-in on loopback: its own run directory, its own
requests (model, wording, max_results), run.json recording the system, the pipeline and its digest, and a
run that refuses another pipeline's recording without changing anything."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import KEY, ROOT, TEN_QUESTIONS, TEN_SCENARIO, env_for, record, run_files
from quotefinder.core.coverage import Coverage
from quotefinder.core.errors import RunDirError
from quotefinder.core.flow import replay
from quotefinder.core.perplexity import DECISIONS_PATH, SEARCH_PATH, Result
from quotefinder.core.pipelinefile import load_pipeline_file
from quotefinder.evalcmd import main
from quotefinder.recipe.config import RECIPE
from quotefinder.recipe.pipeline import steps
from quotefinder.record.cache import ResponseCache
from quotefinder.record.rundir import RUN_FILE, RunRecord
from quotefinder.standin import FakeApi, load_scenario
from quotefinder.standin import main as standin_main

VARIANT_FILE = ROOT / "pipelines" / "terse-criteria.yaml"
_, VARIANT = load_pipeline_file(VARIANT_FILE)


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch) -> Path:
    """A directory laid out like the repository (questions/, pipelines/), as the current directory."""
    shutil.copytree(ROOT / "questions", tmp_path / "questions")
    shutil.copytree(ROOT / "pipelines", tmp_path / "pipelines")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_variant_records_into_its_own_run_and_run_json_says_which(workspace, standin_for, capsys) -> None:
    server = standin_for(TEN_SCENARIO, pipeline=VARIANT)
    code = main(["questions/ten.yaml", "--pipeline", "pipelines/terse-criteria.yaml", "--rate", "0"],
                env=env_for(server))
    assert code == 0, capsys.readouterr().err
    assert "Pipeline `terse-criteria`" in capsys.readouterr().err
    run_dir = workspace / "runs" / "ten-terse-criteria"
    assert run_dir.is_dir() and not (workspace / "runs" / "ten").exists()  # never into the recipe's run

    config = json.loads((run_dir / RUN_FILE).read_text())["config"]
    assert config["system"] == "quote-finder"
    assert config["pipeline"] == VARIANT.as_json() and config["pipeline_digest"] == VARIANT.digest
    assert (config["model"], config["max_results"]) == ("pplx-decider-v1.2-27b", 3)
    loaded = RunRecord.require(run_dir)
    assert loaded.config.pipeline == VARIANT
    assert loaded.config.pipeline.cutoffs(*loaded.config.default_point) == VARIANT.cutoffs()

    searches = [body for path, body in server.requests if path == SEARCH_PATH]
    decisions = [body for path, body in server.requests if path == DECISIONS_PATH]
    assert searches and all(body["max_results"] == 3 for body in searches)
    assert decisions and {body["model"] for body in decisions} == {"pplx-decider-v1.2-27b"}
    ranks = [body for body in decisions if "best" in body["questions"]]
    compares = [body for body in decisions if "best" not in body["questions"]]
    assert ranks and compares
    assert all(body["questions"]["best"]["instructions"] == VARIANT.rank_instructions for body in ranks)
    assert all(body["questions"]["has_answer"]["criteria"] == VARIANT.has_answer_criteria.as_json() for body in ranks)
    for body in compares:
        for n, question in enumerate(body["questions"].values(), start=1):
            assert question["instructions"] == f"Does candidate {n} state the answer?"
            assert question["criteria"] == VARIANT.compare_criteria.as_json()
    cache = ResponseCache(run_dir)
    traces = [replay(steps(q.question, Coverage(), None, 0, config=loaded.config.pipeline),
                     lambda request: cache.require(request).data) for q in loaded.questions]
    assert max(trace.result_count for trace in traces) == 3  # the scenario has five pages for some questions


def test_extending_a_variant_run_without_the_file_uses_its_own_pipeline(tmp_path, standin_for, capsys) -> None:
    server = standin_for(TEN_SCENARIO, pipeline=VARIANT)
    run_dir = tmp_path / "variant"
    assert record(run_dir, TEN_QUESTIONS, server, "--pipeline", str(VARIANT_FILE)) == 0
    before, sent = run_files(run_dir), len(server.requests)
    assert record(run_dir, TEN_QUESTIONS, server) == 0  # no --pipeline: the run's own, all of it cached
    assert record(run_dir, TEN_QUESTIONS, server, "--offline") == 0
    assert len(server.requests) == sent and run_files(run_dir) == before


@pytest.mark.parametrize("into_variant", [True, False])
def test_recording_another_pipeline_into_a_run_is_refused_and_changes_nothing(tmp_path, standin_for, capsys,
                                                                              into_variant) -> None:
    """A variant into the recipe's run, and the recipe's file into a variant's run: exit 2, nothing sent or
    changed, and the message says to record into its own --run DIR."""
    recipe_file = tmp_path / "recipe.yaml"
    recipe_file.write_text("name: recipe\n")
    held, other = (RECIPE, VARIANT_FILE) if into_variant else (VARIANT, recipe_file)
    server = standin_for(TEN_SCENARIO, pipeline=held)
    run_dir = tmp_path / "run"
    first = [] if held is RECIPE else ["--pipeline", str(VARIANT_FILE)]
    assert record(run_dir, TEN_QUESTIONS, server, *first) == 0
    capsys.readouterr()
    before, sent = run_files(run_dir), len(server.requests)
    assert record(run_dir, TEN_QUESTIONS, server, "--pipeline", str(other)) == 2
    err = capsys.readouterr().err
    assert "record into its own --run DIR" in err and str(run_dir) in err and KEY not in err
    assert run_files(run_dir) == before and len(server.requests) == sent


def test_a_renamed_copy_of_the_recipe_records_into_the_recipes_run(tmp_path, standin_for, capsys) -> None:
    """Same requests, same digest: the recipe's run takes it (its cache answers every request)."""
    server = standin_for(TEN_SCENARIO)
    run_dir = tmp_path / "run"
    assert record(run_dir, TEN_QUESTIONS, server) == 0
    sent = len(server.requests)
    mine = tmp_path / "mine.yaml"
    mine.write_text("name: mine\nmodel: pplx-decider-v1.1-27b\n")
    assert record(run_dir, TEN_QUESTIONS, server, "--pipeline", str(mine)) == 0
    assert len(server.requests) == sent


def test_an_edited_pipeline_in_run_json_is_refused(tmp_path, standin_for) -> None:
    server = standin_for(TEN_SCENARIO, pipeline=VARIANT)
    run_dir = tmp_path / "run"
    assert record(run_dir, TEN_QUESTIONS, server, "--pipeline", str(VARIANT_FILE)) == 0
    data = json.loads((run_dir / RUN_FILE).read_text())
    data["config"]["pipeline"]["search"]["max_results"] = 5
    (run_dir / RUN_FILE).write_text(json.dumps(data))
    with pytest.raises(RunDirError, match=r"run\.json.*pipeline_digest.*run\.json was edited"):
        RunRecord.load(run_dir)


def test_the_stand_in_follows_the_pipeline_it_is_given(tmp_path) -> None:
    """It answers with the model it serves and refuses another, as the real API refuses a model it lacks."""
    scenario = load_scenario(TEN_SCENARIO)
    question = next(iter(scenario.questions))
    variant, recipe = FakeApi(scenario, pipeline=VARIANT), FakeApi(scenario)
    result = Result("t", "https://x.example", "", None)
    body = json.dumps(VARIANT.rank_request(question, result, ["A sentence long enough to keep."]).body).encode()
    status, payload = variant.respond(DECISIONS_PATH, body, "key")
    assert status == 200 and payload["model"] == "pplx-decider-v1.2-27b"
    status, payload = recipe.respond(DECISIONS_PATH, body, "key")
    assert status == 400 and "unknown model 'pplx-decider-v1.2-27b'" in payload["error"]["message"]
    search = json.dumps(VARIANT.search_request(question).body).encode()
    assert len(variant.respond(SEARCH_PATH, search, "key")[1]["results"]) == 3


def test_the_stand_ins_command_line_refuses_a_bad_pipeline_file(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("modle: x\n")
    assert standin_main([str(TEN_SCENARIO), "--port", "0", "--pipeline", str(bad)]) == 2
    assert "bad.yaml, line 1: unknown key `modle` (did you mean `model`?)" in capsys.readouterr().err
