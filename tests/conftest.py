"""Shared fakes: the stand-in API on loopback, small question sets and scenarios written to tmp_path."""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from quotefinder.standin import Scenario, StandIn, load_scenario

ROOT = Path(__file__).resolve().parent.parent
TEN_QUESTIONS = ROOT / "questions" / "ten.yaml"
TEN_SCENARIO = ROOT / "scenarios" / "ten.yaml"
KEY = "test-key-3f9c1a7e5b"
HOSTILE = ("See [click](http://evil.example) ![x](http://evil.example/p.png) <img src=x onerror=alert(1)> "
           "| a `tick` \n**bold**")  # a fake key; tests assert it never reaches a file or a message


def page(title: str, url: str, snippet: str, *, choice: int | str = 1, has_answer: float = 0.9,
         answers: float = 0.9, probability: float = 0.9, date: str | None = None) -> dict[str, Any]:
    """One scenario result."""
    return {"title": title, "url": url, "snippet": snippet, "choice": choice, "has_answer": has_answer,
            "answers": answers, "probability": probability, "date": date}


def write_scenario(path: Path, questions: dict[str, list[dict[str, Any]]], jitter: float = 0.0) -> Path:
    data = {"jitter": jitter, "questions": [{"question": q, "results": r} for q, r in questions.items()]}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def write_questions(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture
def standin_for() -> Iterator[Callable[..., StandIn]]:
    """Start stand-in servers on loopback for a scenario (a path or a `Scenario`); all stop at teardown."""
    started: list[StandIn] = []

    def start(scenario: Path | Scenario = TEN_SCENARIO, **options: Any) -> StandIn:
        loaded = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        if not isinstance(scenario, Scenario):
            loaded.repeat_jitter = 0.0  # a request asked again gets the same answer, unless a test wants otherwise
        server = StandIn(loaded, **options)
        server.start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def outside_code_spans(markdown: str) -> str:
    """What a Markdown renderer would parse: the text with every code span removed."""
    return re.sub(r"(`+)(.+?)\1", "", markdown)


def env_for(server: StandIn) -> dict[str, str]:
    return {"PERPLEXITY_API_KEY": KEY, "PERPLEXITY_BASE_URL": server.base_url}


def run_files(run_dir: Path) -> dict[str, bytes]:
    """Every file of a run, by relative path, for before/after comparisons."""
    return {str(p.relative_to(run_dir)): p.read_bytes() for p in sorted(run_dir.rglob("*")) if p.is_file()}


def record(run_dir: Path, questions: Path, server: StandIn, *options: str) -> int:
    """Record `questions` into `run_dir` from the stand-in with eval.py (no rate limit, no retries)."""
    from quotefinder.evalcmd import main

    return main([str(questions), "--run", str(run_dir), "--rate", "0", "--retries", "0", *options],
                env=env_for(server))
