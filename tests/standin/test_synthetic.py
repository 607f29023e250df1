"""Synthetic question sets: deterministic, valid, and served by the stand-in as they say."""

from __future__ import annotations

from pathlib import Path

from quotefinder.questions import load_questions
from quotefinder.standin import load_scenario, synthetic


def test_generation_is_deterministic_and_loads(tmp_path: Path) -> None:
    assert synthetic.generate(50, seed=3) == synthetic.generate(50, seed=3)
    assert synthetic.generate(50, seed=3) != synthetic.generate(50, seed=4)
    questions, scenario = synthetic.write(tmp_path, 50, seed=3)
    loaded = load_questions(questions)
    pages = load_scenario(scenario)
    assert len(loaded.questions) == 50 and set(pages.questions) == {q.question for q in loaded.questions}
    assert {q.expect for q in loaded.questions} == {"answer", "no-answer"}
