"""A fourth system is one package and one registration: a toy system, defined here and nowhere else (its axes,
its pipeline, its request flow, its rule and its curve), registered with `core.registry.register`, is recorded
by eval.py against an `httpx.MockTransport`, swept by sweep.py, and its grid and decision read back. Nothing in
the package names it; a broken entry point plugin is an error that names it, not a traceback."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pandas as pd
import pytest

from conftest import KEY, write_questions
from quotefinder.core import registry
from quotefinder.core.errors import ContractError, InputError
from quotefinder.core.plugin import ApiSpec, AxisSpec, Curve, Piece, Quote, Reading, Steps, Unadorned
from quotefinder.core.requests import ApiRequest, field_of, probability
from quotefinder.core.schema import Fail, OwnPipeline, check_section, check_value
from quotefinder.evalcmd import main as eval_main
from quotefinder.questions import load_questions
from quotefinder.record.rundir import RunRecord
from quotefinder.sweepcmd import main as sweep_main

NAME = "toy"
PATH = "/toy/answer"
MIN_SCORE = AxisSpec("min_score", "MIN_SCORE", 0.5, "an answer is quoted only when its score is at least this",
                     removes_quotes=True, recorded=False)
MIN_CONFIDENCE = AxisSpec("min_confidence", "MIN_CONFIDENCE", 0.5, "... and its confidence at least this",
                          removes_quotes=True, recorded=False)
GRID = "0:1:0.25"
# What the toy API answers, by question: (answer, score, confidence); a question it does not know gets nothing.
SERVED = {
    "How deep is the Mariana Trench?": ("About 11 km deep.", 0.9, 0.8),
    "How many bones are in an adult?": ("There are 300 of them.", 0.6, 0.3),
    "Who built the moon base?": ("Nobody did, in 1969.", 0.4, 0.9),
    "When was the Rosetta Stone discovered?": ("In 1799.", 0.75, 0.5),
}
QUESTIONS = """\
questions:
  - id: trench
    question: How deep is the Mariana Trench?
    expect: answer
    accept: ['\\b11 km\\b']
  - id: bones
    question: How many bones are in an adult?
    expect: answer
    accept: ['\\b206\\b']
  - id: moon
    question: Who built the moon base?
    expect: no-answer
  - id: rosetta
    question: When was the Rosetta Stone discovered?
    expect: answer
    accept: ['\\b1799\\b']
"""


@dataclass(frozen=True)
class ToyPipeline(OwnPipeline):
    """Every value a toy request sends: its model, and the default point."""

    system: ClassVar[str] = NAME

    name: str = NAME
    model: str = "toy-1"
    min_score: float = MIN_SCORE.default
    min_confidence: float = MIN_CONFIDENCE.default

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "model": self.model, "min_score": self.min_score,
                "min_confidence": self.min_confidence}

    @classmethod
    def build(cls, data: Any, fail: Fail, strict: bool, also: tuple[str, ...] = ()) -> ToyPipeline:
        found: dict[tuple[str, ...], Any] = {}
        schema = {"name": "name", "model": "text", "min_score": "cutoff", "min_confidence": "cutoff"}

        def value(kind: str, given: Any, keys: tuple[str, ...], fail: Fail) -> Any:
            if kind != "cutoff":
                return check_value(kind, given, keys, fail)
            if isinstance(given, bool) or not isinstance(given, int | float) or not 0 <= given <= 1:
                raise fail(keys, f"`{keys[-1]}` is {given!r}, not a cutoff in [0, 1]")
            return float(given)

        check_section(data, schema, (), fail, strict, also, found, value)
        return dataclasses.replace(DEFAULT, **{keys[0]: v for keys, v in found.items()})


DEFAULT = ToyPipeline()


@dataclass(frozen=True)
class ToyTrace:
    """The one response a question gets: its answer (None: nothing), score and confidence; and what recording
    reads of every system's trace (`plugin.Trace`)."""

    answer: str | None
    score: float
    confidence: float
    requests: int = 1
    input_tokens: int = 0
    result_count: int = 1


def rule(trace: ToyTrace, x: float, y: float) -> bool:
    """The toy's decision rule: quote when score >= x and confidence >= y (a value on a cutoff passes)."""
    return trace.answer is not None and trace.score >= x and trace.confidence >= y


class Toy(Unadorned):
    """The toy system: one request per question, quoted when both numbers pass their cutoffs."""

    name = NAME
    axes = (MIN_SCORE, MIN_CONFIDENCE)
    default = DEFAULT
    pipeline_type = ToyPipeline
    quote_score = "score"
    apis: tuple[ApiSpec, ...] = (ApiSpec("the toy API", "TOY_BASE_URL", "TOY_API_KEY", "https://toy.example"),)
    settings = "cutoffs"
    comments: Mapping[tuple[str, ...], str] = {("model",): "the toy model"}
    default_grid: str | None = GRID
    no_answer_words = "the toy found nothing it trusts"

    def worst_words(self, config: Any) -> str:
        return "one request each"

    def described(self, config: Any) -> str:
        return f"model {config.model}"

    def default_point(self, config: Any) -> tuple[float, float]:
        return config.min_score, config.min_confidence

    def steps(self, question: str, config: Any, coverage: Mapping[str, Sequence[Any]], repeat: int = 0) -> Steps:
        (data,) = yield [ApiRequest(PATH, {"question": question, "model": (config or DEFAULT).model}, repeat)]
        return ToyTrace(data["answer"], data["score"], data["confidence"])

    def check(self, request: ApiRequest, data: Any) -> None:
        answer = field_of(data, "answer", "the toy response")
        if answer is not None and not isinstance(answer, str):
            raise ContractError("the toy response's `answer` is not text")
        for name in ("score", "confidence"):
            probability(field_of(data, name, "the toy response"), f"the toy response's `{name}`")

    def input_tokens(self, request: ApiRequest, data: Any) -> int:
        return 0

    def bound(self, config: Any, coverage: Mapping[str, Sequence[Any]], batch: Sequence[Any], missing: int,
              first: bool) -> int:
        return missing

    def expected(self, config: Any, coverage: Mapping[str, Sequence[Any]]) -> tuple[float, float, str]:
        return 1.0, 0.0, "one toy request per question"

    def _piece(self, trace: ToyTrace, quoted: bool) -> Piece:
        quote = Quote(trace.answer or "", "toy", "https://toy.example", None, trace.score, "score")
        return Piece(quote if quoted else None, None if quoted or trace.answer is None else quote)

    def decide(self, trace: ToyTrace, x: float, y: float) -> Piece:
        return self._piece(trace, rule(trace, x, y))

    def curve(self, trace: ToyTrace) -> Curve:
        if trace.answer is None:
            return Curve((), ((),), ((self._piece(trace, False),),))
        # x <= score: quoted while y <= confidence; x above the score: never quoted
        return Curve((trace.score,), ((trace.confidence,), ()),
                     ((self._piece(trace, True), self._piece(trace, False)), (self._piece(trace, False),)))

    def readings(self, request: ApiRequest, data: Any) -> list[Reading]:
        return [Reading("answer", data["answer"], (data["score"], data["confidence"]), "score")]


TOY = Toy()


@pytest.fixture
def toy() -> Iterator[Toy]:
    registry.register(TOY)
    try:
        yield TOY
    finally:
        registry.unregister(NAME)


def handler(request: httpx.Request) -> httpx.Response:
    """The toy API: what `SERVED` says for the question asked, with the bearer key checked."""
    if request.url.path != PATH or request.headers.get("authorization") != f"Bearer {KEY}":
        return httpx.Response(404 if request.url.path != PATH else 401, json={"error": "no"})
    question = json.loads(request.content)["question"]
    answer, score, confidence = SERVED.get(question, (None, 0.0, 0.0))
    return httpx.Response(200, json={"answer": answer, "score": score, "confidence": confidence})


def record_toy(tmp_path: Path) -> Path:
    questions = write_questions(tmp_path / "toy.yaml", QUESTIONS)
    pipeline = tmp_path / "toy-pipeline.yaml"
    pipeline.write_text(f"system: {NAME}\n", encoding="utf-8")
    run = tmp_path / "runs" / "toy"
    code = eval_main([str(questions), "--run", str(run), "--pipeline", str(pipeline), "--rate", "0", "--retries",
                      "0"], env={"TOY_API_KEY": KEY, "TOY_BASE_URL": "https://toy.example"},
                     transport=httpx.MockTransport(handler))
    assert code == 0
    return run


def test_a_toy_run_is_recorded_with_its_own_pipeline_and_no_other_systems_keys(toy: Toy, tmp_path: Path) -> None:
    run = record_toy(tmp_path)
    record = RunRecord.require(run)
    assert record.complete and record.config.system == NAME and record.config.pipeline == DEFAULT
    assert record.config.default_point == (MIN_SCORE.default, MIN_CONFIDENCE.default)
    config = json.loads((run / "run.json").read_text())["config"]
    assert set(config) == {"base_url_host", "ranges", "system", "pipeline", "pipeline_digest"}
    assert record.responses == len(SERVED)


@pytest.mark.slow
def test_the_toy_sweep_s_grid_and_decision_are_its_rule_applied_cell_by_cell(toy: Toy, tmp_path: Path) -> None:
    run = record_toy(tmp_path)
    out = tmp_path / "report"
    assert sweep_main([str(run), "--out", str(out), "--folds", "0"]) == 0
    grid = pd.read_csv(out / "grid.csv")
    values = [i / 4 for i in range(5)]  # GRID's values
    assert list(grid.columns[:2]) == [MIN_SCORE.heading, MIN_CONFIDENCE.heading]
    assert sorted(set(grid[MIN_SCORE.heading])) == values == sorted(set(grid[MIN_CONFIDENCE.heading]))
    questions = load_questions(tmp_path / "toy.yaml").questions
    for row in grid.itertuples(index=False):
        x, y = getattr(row, MIN_SCORE.heading), getattr(row, MIN_CONFIDENCE.heading)
        expected = {"correct": 0, "wrong": 0, "missed": 0, "no_answer": 0}
        for question in questions:  # the slow, obvious reference: the rule itself, question by question
            answer, score, confidence = SERVED[question.question]
            quoted = rule(ToyTrace(answer, score, confidence), x, y)
            expected[question.judge(answer if quoted else None).value] += 1
        assert {name: getattr(row, name) for name in expected} == expected, (x, y)
    decision = json.loads((out / "decision.json").read_text())
    assert decision["axes"] == [MIN_SCORE.heading, MIN_CONFIDENCE.heading]
    assert decision["default"] == [MIN_SCORE.default, MIN_CONFIDENCE.default]
    at_default = grid[(grid[MIN_SCORE.heading] == MIN_SCORE.default)
                      & (grid[MIN_CONFIDENCE.heading] == MIN_CONFIDENCE.default)].iloc[0]
    assert decision["counts"] == {name: int(at_default[name]) for name in decision["counts"]}
    summary = (out / "summary.md").read_text()
    assert "MIN_SCORE" in summary and "has_answer" not in summary.lower()


class Broken:
    """An installed entry point whose package cannot be imported."""

    name, value = "broken-toy", "toy_package.system:SYSTEM"

    def load(self) -> Any:
        raise ImportError("No module named 'toy_package'")


def broken_plugin(monkeypatch) -> None:
    """The registry as a fresh process finds it with `Broken` installed (restored at teardown)."""
    monkeypatch.setattr(registry, "entry_points", lambda group: [Broken()] if group == registry.GROUP else [])
    monkeypatch.setattr(registry, "_systems", {})
    monkeypatch.setattr(registry, "_loaded", set())


def test_a_broken_entry_point_plugin_is_an_error_that_names_it(monkeypatch) -> None:
    broken_plugin(monkeypatch)
    with pytest.raises(InputError, match=r"the system plugin 'broken-toy' \(toy_package.system:SYSTEM\) cannot be "
                                         r"loaded: ImportError: No module named 'toy_package'; fix or uninstall"):
        registry.known_systems()


def test_a_broken_plugin_does_not_stop_a_built_in_system(monkeypatch) -> None:
    """Only a name the built-ins lack makes the registry read the installed plugins."""
    broken_plugin(monkeypatch)
    assert registry.system("quote-finder").name == "quote-finder"
    with pytest.raises(InputError, match="broken-toy"):
        registry.system("broken-toy")


def test_a_broken_plugin_reaches_the_command_line_as_a_message(monkeypatch, tmp_path: Path, capsys) -> None:
    broken_plugin(monkeypatch)
    pipeline = tmp_path / "p.yaml"
    pipeline.write_text("system: broken-toy\n", encoding="utf-8")
    code = eval_main([str(write_questions(tmp_path / "q.yaml", QUESTIONS)), "--pipeline", str(pipeline),
                      "--run", str(tmp_path / "run"), "--offline"])
    err = capsys.readouterr().err
    assert code != 0 and "the system plugin 'broken-toy'" in err and "Traceback" not in err
