"""run.json: one typed record that reads, checks and writes it; refused clearly when it is not a run
record; rewritten only when something changed."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT
from hostile import FUZZ_EXAMPLES, ODDITIES, damaged_bytes, damaged_structure
from quotefinder.core.errors import RunDirError
from quotefinder.questions import Question
from quotefinder.record import rundir
from quotefinder.record.rundir import RUN_FILE, QuestionError, RequestCounts, RunConfig, RunRecord


def test_the_demo_record_reads_and_writes_back_byte_identical(tmp_path: Path) -> None:
    record = RunRecord.load(ROOT / "runs" / "ten")
    assert record is not None and record.synthetic and record.complete and record.repeats == 3
    assert record.config.default_point == (0.3, 0.6) and record.config.span == (0.0, 1.0)
    assert [q.id for q in record.questions][:2] == ["mariana-depth", "sunlight-travel"]
    assert record.save(tmp_path)
    assert (tmp_path / RUN_FILE).read_bytes() == (ROOT / "runs" / "ten" / RUN_FILE).read_bytes()


def test_a_record_is_rewritten_only_when_something_but_times_changed(tmp_path: Path) -> None:
    record = RunRecord((Question("q", "Q?", "answer"),), complete=True, started_at="a", finished_at="b",
                       requests=RequestCounts(sent=3))
    assert record.save(tmp_path)
    written = (tmp_path / RUN_FILE).read_bytes()
    again = dataclasses.replace(record, started_at="c", finished_at="d", requests=RequestCounts())
    assert not again.save(tmp_path, RunRecord.load(tmp_path))
    assert (tmp_path / RUN_FILE).read_bytes() == written
    assert dataclasses.replace(record, complete=False).save(tmp_path, RunRecord.load(tmp_path))
    assert RunRecord.load(tmp_path) == dataclasses.replace(record, complete=False)


def test_a_whole_number_written_as_a_float_is_read_as_that_number(tmp_path: Path) -> None:
    data = json.loads((ROOT / "runs" / "ten" / RUN_FILE).read_text())
    data["config"].update(repeats=3.0, min_sentences=1.0)
    (tmp_path / RUN_FILE).write_text(json.dumps(data))
    record = RunRecord.load(tmp_path)
    assert record is not None and record.repeats == 3 and record.config.pipeline.min_sentences == 1


def test_repeats_are_written_only_when_there_are_several(tmp_path: Path) -> None:
    record = RunRecord((Question("q", "Q?", "no-answer"),), config=RunConfig(repeats=1))
    assert "repeats" not in record.as_json()["config"]
    assert dataclasses.replace(record, config=RunConfig(repeats=2)).as_json()["config"]["repeats"] == 2


def test_what_stopped_a_recording_is_kept_and_said(tmp_path: Path) -> None:
    """A recording cut short by --max-requests: its unrecorded questions are pending, not failed; a run without
    any of it writes neither field."""
    errors = (QuestionError("a", 0, "the search returned 500"),
              QuestionError("b", 0, "not recorded yet (stopped by --max-requests)", pending=True),
              QuestionError("b", 1, "not recorded yet (stopped by --max-requests)", pending=True))
    record = RunRecord((Question("a", "A?", "answer"), Question("b", "B?", "no-answer")), errors=errors,
                       stopped="max-requests")
    data = record.as_json()
    assert data["stopped"] == "max-requests" and [e.get("pending") for e in data["errors"]] == [None, True, True]
    assert record.save(tmp_path) and RunRecord.load(tmp_path) == record
    assert record.incompleteness == ("1 question(s) failed; 2 question(s) not recorded yet (stopped by "
                                     "--max-requests)")
    assert dataclasses.replace(record, errors=(), stopped=None).incompleteness == "its last recording did not finish"
    plain = dataclasses.replace(record, errors=errors[:1], stopped=None).as_json()
    assert "stopped" not in plain and plain["errors"] == [{"id": "a", "repeat": 0, "error": "the search returned 500"}]


@pytest.mark.parametrize("content", ["", "{", "[]", '{"format": "other"}', "null",
                                     '{"format": "quotefinder-run/1", "config": {"min_sentences": "1"}}',
                                     '{"format": "quotefinder-run/1", "complete": "yes"}',
                                     '{"format": "quotefinder-run/1", "questions": [{"id": "q", "question": "Q?", '
                                     '"expect": "answer", "accept": ["("]}]}',
                                     # a recorded question missing a field would be judged by a silent default
                                     '{"format": "quotefinder-run/1", "questions": [{"id": "q", "question": "Q?", '
                                     '"accept": []}]}',
                                     '{"format": "quotefinder-run/1", "config": {"has_answer_cutoff": 1e400}}',
                                     '{"format": "quotefinder-run/1", "config": {"answer_cutoff": -5}}',
                                     '{"format": "quotefinder-run/1", "config": {"has_answer_range": [0.5, 0.2]}}',
                                     '{"format": "quotefinder-run/1", "config": {"repeats": 2.5}}',
                                     '{"format": "quotefinder-run/1", "stopped": "budget"}',
                                     '{"format": "quotefinder-run/1", "errors": [{"id": "q", "pending": "yes"}]}',
                                     '{"format": "quotefinder-run/1", "responses": 1' + "0" * 400 + '.0}'])
def test_what_is_not_a_run_record_is_refused(tmp_path: Path, content: str) -> None:
    (tmp_path / RUN_FILE).write_text(content)
    with pytest.raises(RunDirError, match="run.json"):
        RunRecord.load(tmp_path)


def test_a_directory_that_is_not_a_run_says_what_to_give_instead(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(RunDirError, match="not a run; choose another --run DIR"):
        RunRecord.load(tmp_path)
    with pytest.raises(RunDirError, match="give the run directory `quotefinder record` recorded into"):
        RunRecord.require(tmp_path / "notes.txt")
    assert RunRecord.load(tmp_path / "new") is None


@settings(max_examples=200, deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
))
@pytest.mark.slow
def test_any_json_is_either_a_run_or_refused(tmp_path_factory, value) -> None:
    directory = tmp_path_factory.mktemp("run")
    (directory / RUN_FILE).write_text(json.dumps(value))
    with contextlib.suppress(RunDirError):
        RunRecord.load(directory)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(
    st.sampled_from(["evidence", "complete", "questions_file", "questions", "config", "started_at", "requests",
                     "responses", "input_tokens", "errors", "cache_format"]),
    st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                 lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_size=4))
@pytest.mark.slow
def test_any_run_shaped_json_is_either_a_run_or_refused(tmp_path_factory, fields) -> None:
    directory = tmp_path_factory.mktemp("run")
    (directory / RUN_FILE).write_text(json.dumps({"format": "quotefinder-run/1", **fields}))
    with contextlib.suppress(RunDirError):
        RunRecord.load(directory)


DEMO = json.loads((ROOT / "runs" / "ten" / RUN_FILE).read_text())


def _load_and_rewrite(tmp_path_factory, raw: bytes) -> None:
    """What eval.py does with a run.json it finds: read it (or refuse it with `RunDirError`), and write back what it
    read, which must read back the same."""
    directory = tmp_path_factory.mktemp("run")
    (directory / RUN_FILE).write_bytes(raw)
    try:
        record = RunRecord.load(directory)
    except RunDirError as error:
        assert str(directory / RUN_FILE) in str(error) and len(str(error)) < 2000
        return
    again = tmp_path_factory.mktemp("again")
    assert record.save(again) and RunRecord.load(again) == record


@pytest.mark.slow
@settings(max_examples=FUZZ_EXAMPLES, deadline=None)
@given(st.data())
def test_fuzz_a_damaged_run_record_is_read_or_refused_naming_it(tmp_path_factory, data) -> None:
    """The demo's run.json with values of the wrong type, deleted fields, deep nesting, huge numbers and lone
    surrogates, then truncated, flipped or padded: read, or refused with the project's own error."""
    text = data.draw(damaged_structure(DEMO))
    _load_and_rewrite(tmp_path_factory, data.draw(damaged_bytes(text.encode("utf-8", "surrogatepass"))))


@pytest.mark.parametrize("oddity", ODDITIES, ids=range(len(ODDITIES)))
@pytest.mark.parametrize("field", ["questions", "config", "errors", "responses", "evidence", "stopped"])
def test_every_oddity_in_every_field_is_read_or_refused(tmp_path_factory, field, oddity) -> None:
    """The fuzz test's oddities, each in each kind of field, every time (the fuzz test only samples them)."""
    text = json.dumps({**DEMO, field: "\x00here"}).replace(json.dumps("\x00here"), oddity)
    _load_and_rewrite(tmp_path_factory, text.encode("utf-8", "surrogatepass"))
    question = json.dumps({**DEMO, "questions": [{**DEMO["questions"][0], "accept": ["\x00here"]}]})
    _load_and_rewrite(tmp_path_factory, question.replace(json.dumps("\x00here"), oddity).encode("utf-8",
                                                                                               "surrogatepass"))


@pytest.mark.parametrize("pattern", ["(" * 200_000, "x{4294967296}", "(?P<a"])
def test_a_recorded_accept_pattern_that_breaks_the_regex_compiler_is_refused(tmp_path, pattern) -> None:
    (tmp_path / RUN_FILE).write_text(json.dumps({**DEMO, "questions": [{**DEMO["questions"][0], "accept": [pattern]}]}))
    with pytest.raises(RunDirError, match="invalid regex"):
        RunRecord.load(tmp_path)


@pytest.mark.parametrize("edit", [{"expect": "maybe"}, {"expect": "no-answer", "accept": ["deep"]},
                                  {"expect": None, "accept": ["deep"]}, {"accept": [7]}, {"accept": ["\ud800"]}],
                         ids=["unknown label", "patterns on no-answer", "patterns unlabelled", "a number",
                              "a lone surrogate"])
def test_a_recorded_question_a_question_file_would_refuse_is_refused(tmp_path, edit) -> None:
    """run.json's copy of a question holds only what the question file's parser allows (judging relies on it)."""
    question = {**DEMO["questions"][0], **edit}
    (tmp_path / RUN_FILE).write_text(json.dumps({**DEMO, "questions": [question]}))
    with pytest.raises(RunDirError, match=r"run\.json: `questions\[0\]\.expect` or `questions\[0\]\.accept` is not "
                                          "what a question file allows"):
        RunRecord.load(tmp_path)



FIELDS = {"id": ["q1", "naïve", "\ud800", "", 7, None],
          "question": ["How many bones?", "naïve?", "\ud800", 3, None, ["x"]],
          "expect": ["answer", "no-answer", None, "maybe", 1, True],
          "accept": [["\\b206\\b"], [], ["a", "b"], ["(unclosed"], ["x{4294967296}"], ["(" * 2000 + ")" * 2000],
                     ["naïve"], ["\ud800"], [7], "x", None]}


def recorded_questions() -> list[object]:
    """Every combination of those values, each also with one field left out or a key no question has, and items
    that are not objects at all."""
    items: list[object] = [[], "q", None, 5]
    for values in itertools.product(*FIELDS.values()):
        item = dict(zip(FIELDS, values, strict=True))
        items += [item, {**item, "other": "kept"}, *({k: v for k, v in item.items() if k != gone} for gone in FIELDS)]
    return items


def test_a_recorded_question_is_read_as_the_field_by_field_check_reads_it() -> None:
    """run.json's questions are read by a check of the common case at once, and anything it does not take by the
    check of each field in turn: the same question, or the same refusal, either way (for any field missing,
    of the wrong type, not ASCII, a lone surrogate, a regex that does not compile, a label no file allows)."""
    def outcome(read, item: object) -> object:
        try:
            return read(item, 3)
        except Exception as error:  # noqa: BLE001 (which error, and its message, is what is compared)
            return type(error), str(error)

    items = recorded_questions()
    read = [outcome(rundir._question, item) for item in items]
    assert read == [outcome(rundir._checked_question, item) for item in items]
    assert sum(isinstance(found, Question) for found in read) > 50  # the common case is among them


# ---- the system and the pipeline a run records ---------------------------------------------------------------


def _without_pipeline(data: dict) -> dict:
    """run.json as written before the config recorded the system and the pipeline."""
    config = {k: v for k, v in data["config"].items() if k not in ("system", "pipeline", "pipeline_digest")}
    return {**data, "config": config}


def test_the_demo_records_the_recipes_pipeline_and_its_digest() -> None:
    from quotefinder.recipe.config import RECIPE

    record = RunRecord.require(ROOT / "runs" / "ten")
    assert record.config.system == "quote-finder" and record.config.pipeline == RECIPE
    assert DEMO["config"]["pipeline"] == RECIPE.as_json() and DEMO["config"]["pipeline_digest"] == RECIPE.digest
    pipeline = record.config.pipeline
    assert (pipeline.model, pipeline.max_results, pipeline.min_sentences) == (RECIPE.model, 5, 1)


def test_a_run_json_from_before_pipelines_reads_as_the_recipes_with_its_flat_keys(tmp_path: Path) -> None:
    from quotefinder.recipe.config import RECIPE

    old = _without_pipeline(DEMO)
    (tmp_path / RUN_FILE).write_text(json.dumps(old))
    record = RunRecord.load(tmp_path)
    assert record is not None and record.outdated and record.config.pipeline == RECIPE
    assert record == RunRecord.require(ROOT / "runs" / "ten")  # the same run, only older in its words
    old["config"].update(model="older-model", max_results=3, min_sentences=2)
    (tmp_path / RUN_FILE).write_text(json.dumps(old))
    pipeline = RunRecord.require(tmp_path).config.pipeline
    assert (pipeline.model, pipeline.max_results, pipeline.min_sentences, pipeline.name) == ("older-model", 3, 2,
                                                                                             "recipe")
    old["config"].update(max_results=0)
    (tmp_path / RUN_FILE).write_text(json.dumps(old))
    with pytest.raises(RunDirError, match=r"run\.json.*max_results"):
        RunRecord.load(tmp_path)


def test_an_outdated_run_json_is_rewritten_with_the_pipeline_even_when_nothing_else_changed(tmp_path: Path) -> None:
    (tmp_path / RUN_FILE).write_text(json.dumps(_without_pipeline(DEMO), indent=2))
    previous = RunRecord.require(tmp_path)
    assert previous.save(tmp_path, previous)  # the keys it lacks are written
    assert (tmp_path / RUN_FILE).read_bytes() == (ROOT / "runs" / "ten" / RUN_FILE).read_bytes()
    again = RunRecord.require(tmp_path)
    assert not again.outdated and not again.save(tmp_path, again)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda c: c.update(system="rag-reader"), r"`config.system` is 'rag-reader', not a system this version knows "
                                              r"\(the systems are: quote-finder, quote-answer, one-shot\)"),
    (lambda c: c["pipeline"].update(model="other"), r"`config.pipeline_digest` is .* run.json was edited"),
    (lambda c: c.update(pipeline_digest="0" * 64), r"run.json was edited"),
    (lambda c: c.pop("pipeline_digest"), r"`config.pipeline_digest` is None"),
    (lambda c: c.pop("pipeline"), r"`config.pipeline_digest` is recorded without `config.pipeline`"),
    (lambda c: c.update(model="other"), r"`config.model` is 'other', but the recorded pipeline's is"),
    (lambda c: c["pipeline"]["search"].pop("max_results"), r"`config.pipeline`: `search` has no `max_results`"),
    (lambda c: c["pipeline"].update(extra=1), r"`config.pipeline`: unknown key `extra`"),
])
def test_a_recorded_pipeline_that_does_not_hold_together_is_refused(tmp_path: Path, edit, message: str) -> None:
    data = json.loads(json.dumps(DEMO))
    edit(data["config"])
    (tmp_path / RUN_FILE).write_text(json.dumps(data))
    with pytest.raises(RunDirError, match=message) as caught:
        RunRecord.load(tmp_path)
    assert str(tmp_path / RUN_FILE) in str(caught.value)


@pytest.mark.parametrize("link", ["responses/b1", "responses", "refused", "refused/0a"])
def test_a_recording_writes_nothing_through_a_committed_link(ten: Path, tmp_path: Path, standin_for, capsys,
                                                             link: str) -> None:
    """A folder of the run a recording writes into, committed as a link to a folder of the user's: refused before
    anything is sent or written, the user's folder as it was."""
    from conftest import record as recording

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "keep.txt").write_text("mine")
    place = ten / link
    place.parent.mkdir(parents=True, exist_ok=True)
    if place.exists():
        place.rename(place.with_name(place.name + "-real"))
    place.symlink_to(mine, target_is_directory=True)
    server = standin_for()
    assert recording(ten, ROOT / "questions" / "ten.yaml", server, "--repeats", "4") == 2
    assert "is a symbolic link" in capsys.readouterr().err
    assert sorted(p.name for p in mine.iterdir()) == ["keep.txt"] and not server.requests


@pytest.mark.parametrize("name", [RUN_FILE])
def test_a_run_json_that_is_a_link_to_a_device_is_refused_at_once(ten: Path, capsys, name: str) -> None:
    import time

    from quotefinder.sweepcmd import main as sweep

    (ten / name).unlink()
    (ten / name).symlink_to("/dev/zero")
    started = time.monotonic()
    assert sweep([str(ten), "--no-plots", "--out", str(ten.parent.parent / "r")]) == 2
    assert time.monotonic() - started < 10 and "not a regular file" in capsys.readouterr().err
