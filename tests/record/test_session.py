"""One recording without the command line (`record.session`): where a run goes by default, which pipeline it
records with (a run holds one), what is still missing once the cache has answered, why it cannot be sent now, and
a recording against the stand-in that leaves nothing missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import KEY, ROOT
from quotefinder.core.errors import RunDirError
from quotefinder.core.pipelinefile import load_pipeline_file
from quotefinder.recipe.config import RECIPE
from quotefinder.recipe.system import QUOTE_FINDER
from quotefinder.record.rundir import RunRecord
from quotefinder.record.session import Recording, RecordOptions, default_run_dir, recording_coverage, run_pipeline

VARIANT = load_pipeline_file(ROOT / "pipelines" / "terse-criteria.yaml")[1]


def quiet(_: str) -> None:
    pass


def test_a_run_goes_to_runs_stem_and_a_variant_beside_it() -> None:
    assert default_run_dir(Path("questions/ten.yaml")) == Path("runs/ten")
    assert default_run_dir(Path("questions/ten.yaml"), RECIPE) == Path("runs/ten")
    assert default_run_dir(Path("questions/ten.yaml"), VARIANT) == Path("runs/ten-terse-criteria")


def test_a_run_holds_one_pipeline(ten: Path) -> None:
    questions = ten.parent.parent / "questions" / "ten.yaml"
    assert run_pipeline(ten, None, "quote-finder", None, questions) is RECIPE  # a new run: the recipe's
    assert run_pipeline(ten, None, "quote-finder", VARIANT, questions) is VARIANT
    held = RunRecord.require(ten)
    assert run_pipeline(ten, held, "quote-finder", None, questions) == held.config.pipeline  # the run's own
    with pytest.raises(RunDirError, match="a run holds one pipeline's responses: record into its own --run DIR "
                                          r"\(without --run, runs/ten-terse-criteria\)"):
        run_pipeline(ten, held, "quote-finder", VARIANT, questions)


def test_the_quote_finder_covers_its_has_answer_range_and_default() -> None:
    options = RecordOptions(span=(0.2, 0.8))
    assert recording_coverage(QUOTE_FINDER, options, (0.5, 0.6), None) == {"has_answer": ((0.2, 0.8), 0.5)}


def test_the_committed_run_has_nothing_missing_and_needs_no_key(ten: Path) -> None:
    recording = Recording.open(ten.parent.parent / "questions" / "ten.yaml", ten, RecordOptions(), notify=quiet)
    assert recording.items and recording.pending == []
    assert recording.refusal(offline=True, key="") == recording.refusal(offline=False, key="") == ""
    assert recording.system is QUOTE_FINDER and recording.pipeline == RunRecord.require(ten).config.pipeline


def test_a_new_run_says_why_nothing_can_be_sent(tmp_path: Path) -> None:
    run_dir = tmp_path / "new"
    recording = Recording.open(ROOT / "questions" / "ten.yaml", run_dir, RecordOptions(), notify=quiet)
    assert len(recording.pending) == len(recording.items) == len(recording.questions.questions)
    assert recording.refusal(offline=True, key="") == (
        f"{run_dir}: nothing is recorded there yet; run without --offline to record it")
    variable = recording.api.key_variable
    assert recording.refusal(offline=False, key="") == (
        f"{len(recording.pending)} question(s) need API requests that {run_dir} does not hold, and {variable} is "
        f"not set. Set it (export {variable}=...) and rerun; nothing was sent.")
    assert not run_dir.exists()  # opening sends and writes nothing


def test_a_recording_against_the_stand_in_leaves_nothing_missing(tmp_path: Path, standin_for) -> None:
    server = standin_for()
    run_dir = tmp_path / "run"
    options = RecordOptions(rate=0, backoff_s=0.01)
    record = Recording.open(ROOT / "questions" / "ten.yaml", run_dir, options, notify=quiet).run(server.base_url, KEY)
    assert record.complete and RunRecord.require(run_dir).complete
    again = Recording.open(ROOT / "questions" / "ten.yaml", run_dir, options, notify=quiet)
    assert again.pending == []
    assert KEY not in (run_dir / "run.json").read_text()
