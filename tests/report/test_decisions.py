"""What eval.py prints (`report.decisions`): each question's block and the Outcome | Count table at the default
point, with SYNTHETIC said first; past a screenful the blocks go to decisions.txt (rewritten only when they
change); and the estimate, which sends nothing."""

from __future__ import annotations

import io
import re
from pathlib import Path

from quotefinder.recipe.system import QUOTE_FINDER
from quotefinder.record.session import Recording, RecordOptions
from quotefinder.report import decisions
from quotefinder.report.decisions import report_decisions, show_estimate
from quotefinder.report.numbers import titled_point_words


def opened(ten: Path) -> Recording:
    return Recording.open(ten.parent.parent / "questions" / "ten.yaml", ten, RecordOptions(), notify=lambda _: None)


def table(text: str) -> dict[str, str]:
    rows = text.split("Outcome    | Count\n-----------|------\n", 1)[1].splitlines()
    return {row.split("|")[0].strip(): row.split("|")[1].strip() for row in rows if "|" in row}


def test_each_question_then_the_table_at_the_default_point(ten: Path) -> None:
    recording = opened(ten)
    out = io.StringIO()
    assert report_decisions(recording, out=out) is None  # ten questions fit a screen
    text = out.getvalue()
    assert text.startswith("SYNTHETIC evidence: recorded against the stand-in API, not the real one.\n")
    questions = len(recording.questions.questions)
    assert len(re.findall(rf"^\[\d+/{questions}\] ", text, re.MULTILINE)) == questions
    at = titled_point_words(QUOTE_FINDER.axes, recording.recorder.default)
    assert at.startswith("HAS_ANSWER_CUTOFF ") and ", ANSWER_CUTOFF " in at
    assert f"At {at} (synthetic), over {recording.previous.repeats} repeats:" in text
    arrows = re.findall(r"^  -> (.+)$", text, re.MULTILINE)
    assert len(arrows) == questions and "not run" not in arrows


def test_past_a_screenful_the_blocks_go_to_a_file_and_the_table_stays(ten: Path, monkeypatch) -> None:
    recording = opened(ten)
    on_screen = io.StringIO()
    report_decisions(recording, verbose=True, out=on_screen)
    monkeypatch.setattr(decisions, "SCREENFUL", 3)
    out = io.StringIO()
    path = report_decisions(recording, out=out)
    assert path == ten / decisions.DECISIONS_FILE
    assert path.read_text() == on_screen.getvalue()  # the file holds what --verbose prints
    assert f"decision: {path} (--verbose prints them here)" in out.getvalue()
    assert table(out.getvalue()) == table(on_screen.getvalue())
    before = path.stat().st_mtime_ns
    report_decisions(recording, out=io.StringIO())
    assert path.stat().st_mtime_ns == before  # unchanged: not rewritten


def test_the_estimate_of_a_complete_run_is_nothing_to_send(ten: Path) -> None:
    out = io.StringIO()
    show_estimate(opened(ten), rate=10, out=out)
    assert out.getvalue().splitlines()[1].startswith("  at most 0 requests (0 question repeat(s) not fully recorded")


def test_the_estimate_of_a_new_run_says_time_and_money(tmp_path: Path, ten: Path) -> None:
    recording = Recording.open(ten.parent.parent / "questions" / "ten.yaml", tmp_path / "new", RecordOptions(),
                               notify=lambda _: None)
    out = io.StringIO()
    show_estimate(recording, rate=10, per_1k_requests=5, per_million_tokens=1, out=out)
    text = out.getvalue()
    assert "(--estimate: nothing was sent)" in text and "recipe's published figures" in text
    assert "time at --rate 10: about" in text and "requests at 5 per 1,000: about" in text
    assert "input tokens at 1 per million: about" in text
    assert not (tmp_path / "new").exists()
