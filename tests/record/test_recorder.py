"""The recorder's first pass, from the cache alone (`record.recorder`): a complete run gives every question its
summary and sends nothing, a new run says what each question lacks first and at most how many requests it can
still send, and a recording cut short says which questions are not recorded yet, never that they failed."""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT
from quotefinder.recipe.config import RECIPE
from quotefinder.record.recorder import QuestionRun
from quotefinder.record.session import Recording, RecordOptions

QUESTIONS = ROOT / "questions" / "ten.yaml"


def opened(run_dir: Path) -> Recording:
    return Recording.open(QUESTIONS, run_dir, RecordOptions(), notify=lambda _: None)


def test_a_complete_run_gives_every_question_its_summary_from_the_cache(ten: Path) -> None:
    recording = opened(ten)
    recorder = recording.recorder
    assert all(item.summary is not None and item.failure() is None for item in recording.items)
    assert recorder.tally.from_cache > 0 and recorder.tally.sent == 0
    assert sum(item.summary.requests for item in recording.items) == recorder.tally.from_cache
    assert recorder.evidence == "synthetic"
    assert all(recorder.bound(item) == (0, True) for item in recording.items)  # nothing left to send


def test_a_new_run_says_what_each_question_lacks_first_and_its_worst_case(tmp_path: Path) -> None:
    recording = opened(tmp_path / "new")
    recorder = recording.recorder
    for item in recording.items:
        assert item.summary is None and item.missing is not None and "search" in item.missing
        assert recorder.bound(item) == (1 + 2 * RECIPE.max_results, False)  # a search, a rank and a compare per result
        failure = item.failure()
        assert failure is not None and failure.id == item.question.id and not failure.pending
    assert recorder.tally.from_cache == 0 and recorder.evidence is None


def test_a_recording_cut_short_says_not_recorded_yet_never_failed(tmp_path: Path) -> None:
    recording = opened(tmp_path / "new")
    recording.recorder.stopped_short(recording.items, "interrupt")
    for item in recording.items:
        assert item.stopped == "interrupt" and item.error == "not recorded yet (interrupted)"
        assert item.failure().pending
    done = QuestionRun(recording.items[0].question)
    assert done.failure().error == "missing None"  # an item never replayed says nothing more
