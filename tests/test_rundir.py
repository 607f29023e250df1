"""run.json: refused clearly when it is not a run record, rewritten only when something changed."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quotefinder.errors import RunDirError
from quotefinder.rundir import read_run, write_run


def test_a_record_is_rewritten_only_when_something_but_times_changed(tmp_path: Path) -> None:
    record = {"complete": True, "started_at": "a", "finished_at": "b", "requests": {"sent": 3}}
    assert write_run(tmp_path, record, None)
    written = (tmp_path / "run.json").read_bytes()
    again = {**record, "started_at": "c", "finished_at": "d", "requests": {"sent": 0}}
    assert not write_run(tmp_path, again, read_run(tmp_path))
    assert (tmp_path / "run.json").read_bytes() == written
    assert write_run(tmp_path, {**record, "complete": False}, read_run(tmp_path))


@pytest.mark.parametrize("content", ["", "{", "[]", '{"format": "other"}', "null",
                                     '{"format": "quotefinder-run/1", "config": {"min_sentences": "1"}}'])
def test_what_is_not_a_run_record_is_refused(tmp_path: Path, content: str) -> None:
    (tmp_path / "run.json").write_text(content)
    with pytest.raises(RunDirError, match="run.json"):
        read_run(tmp_path)


@settings(max_examples=200, deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
))
def test_any_json_is_either_a_run_or_refused(tmp_path_factory, value) -> None:
    directory = tmp_path_factory.mktemp("run")
    (directory / "run.json").write_text(json.dumps(value))
    with contextlib.suppress(RunDirError):
        read_run(directory)
