"""Shared fakes and slow references: the stand-in API on loopback, small question sets and scenarios
written to tmp_path, random traces, and the obvious per-cell replay that the fast paths are held to."""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import shutil
import socket
import tempfile
import textwrap
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from quotefinder.commands.options import SCREEN
from quotefinder.core import flow
from quotefinder.questions import OUTCOMES, Outcome, Question, QuestionSet
from quotefinder.recipe import sentences
from quotefinder.recipe.decision import Candidate, Decision, decide, qualified, set_key
from quotefinder.recipe.pipeline import Trace
from quotefinder.recipe.system import QUOTE_FINDER
from quotefinder.record.cache import ResponseCache
from quotefinder.record.rundir import RunConfig, RunRecord
from quotefinder.standin import Scenario, StandIn, load_scenario
from quotefinder.sweep.grid import JudgedCurve, Table
from quotefinder.sweep.replay import Replayed

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


def pytest_configure(config: pytest.Config) -> None:
    """Every test's derived files (replay indexes, kept parses) in a cache directory of the test session, never the
    user's, and no project configuration read (the tests of one ask for it, `config_read`): set in the environment
    before any test module is imported, so that the sweeps the tests run as subprocesses (with an environment copied
    at import) do the same."""
    from quotefinder.core.storage import CACHE_ENV

    folder = tempfile.mkdtemp(prefix="quotefinder-derived-")
    config.stash[_DERIVED] = (folder, os.environ.get(CACHE_ENV))
    os.environ[CACHE_ENV] = folder
    os.environ["QUOTEFINDER_CONFIG"] = ""  # no project configuration: never the developer's own, wherever it is


def pytest_unconfigure(config: pytest.Config) -> None:
    from quotefinder.core.storage import CACHE_ENV

    folder, before = config.stash.get(_DERIVED, (None, None))
    if folder is None:
        return
    shutil.rmtree(folder, ignore_errors=True)
    if before is None:
        os.environ.pop(CACHE_ENV, None)
    else:
        os.environ[CACHE_ENV] = before


_DERIVED = pytest.StashKey[tuple[str, "str | None"]]()


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a socket fails the test: the sweep must work offline."""

    def refuse(*args, **kwargs):
        raise AssertionError("sweep.py tried to open a network connection")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def copy_run(source: Path, target: Path) -> Path:
    """A copy of a run directory as committed: without the replay index a local sweep may have left beside it."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("replay-index"))
    return target


@pytest.fixture
def ten(tmp_path: Path) -> Path:
    """A copy of the committed demo run with its question file, laid out as in the repository."""
    copy_run(ROOT / "runs" / "ten", tmp_path / "runs" / "ten")
    shutil.copytree(ROOT / "questions", tmp_path / "questions")
    return tmp_path / "runs" / "ten"


def outside_code_spans(markdown: str) -> str:
    """What a Markdown renderer would parse: the text with every code span removed."""
    return re.sub(r"(`+)(.+?)\1", "", markdown)


def github_html(markdown: str) -> str:
    """`markdown` as GitHub renders it (cmark-gfm, GitHub's own parser, with its table, autolink and tag
    filter extensions), raw HTML let through, so a test sees any that would reach the page."""
    import cmarkgfm
    from cmarkgfm.cmark import Options

    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


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


def record_quote_answer(run_dir: Path, questions: Path, server: StandIn, *options: str) -> int:
    """Record `questions` with the quote-answer system from the stand-in (its own key and base URL variables)."""
    from quotefinder.evalcmd import main

    run_dir.parent.mkdir(parents=True, exist_ok=True)
    pipeline = run_dir.parent / f"{run_dir.name}-pipeline.yaml"
    pipeline.write_text("system: quote-answer\n", encoding="utf-8")
    return main([str(questions), "--run", str(run_dir), "--pipeline", str(pipeline), "--rate", "0", "--retries", "0",
                 *options], env={"QUOTEANSWER_API_KEY": KEY, "QUOTEANSWER_BASE_URL": server.base_url})


def squad_sample(root: Path, count: int, seed: int) -> tuple[Path, Path]:
    """`count` SQuAD questions imported into root/questions/squad.yaml, and the stand-in scenario of their
    paragraphs in root/squad.json: real page text for a system to be recorded on."""
    from quotefinder.commands.importing import main as import_main
    from quotefinder.standin.squad import main as squad_main

    squad = ROOT / "data" / "squad2-dev-sample.json"
    questions = root / "questions" / "squad.yaml"
    assert import_main([str(squad), "--out", str(questions), "--sample", str(count), "--seed",
                        str(seed)]) == 0
    assert squad_main([str(squad), "--out", str(root / "squad.json")]) == 0
    return questions, root / "squad.json"


def expected_requests(scenario_path: Path) -> tuple[int, int, int]:
    """(searches, rank requests, compare requests) the pipeline must send, computed from the scenario alone.

    Over the default range 0:1 every distinct has_answer among the ranked results selects its own set.
    """
    scenario = load_scenario(scenario_path)
    ranks = compares = 0
    for pages in scenario.questions.values():
        usable = [p for p in pages[:5] if sentences.split(p.snippet)]
        ranked = {(p.title, p.url, tuple(sentences.split(p.snippet))) for p in usable}
        ranks += len(ranked)
        compares += len({p.has_answer for p in usable})
    return len(scenario.questions), ranks, compares


# ---- random traces and the slow reference ----------------------------------------------------------

GRID = [float(Decimal(k) / 20) for k in range(21)]
Item = tuple[Question, Trace]


def probability(rng: random.Random) -> float:
    """Often exactly a grid value or a repeat, sometimes anything in [0, 1]."""
    return rng.choice([rng.choice(GRID), rng.choice([0.0, 0.3, 0.6, 1.0]), rng.random(), round(rng.random(), 2)])


def random_item(rng: random.Random, n: int) -> Item:
    """A question with 0-5 results (some without sentences), tied and on-grid probabilities, and compare
    probabilities that differ between qualified sets."""
    results = rng.randint(0, 5)
    candidates = []
    for r in range(1, results + 1):
        if rng.random() < 0.2:
            continue  # a result without usable sentences: no candidate
        candidates.append(Candidate(r, f"T{r}", f"https://{r}.example", None, 1, f"q{n} sentence s{rng.randint(1, 3)}",
                                    0.5, 0.5, probability(rng)))
    trace = Trace(f"question {n}", 0, [1] * results, candidates)
    for v in {c.has_answer for c in candidates}:
        chosen = qualified(candidates, v)
        trace.compares[set_key(chosen)] = [probability(rng) for _ in chosen]
    expect = rng.choice(["answer", "answer", "no-answer"])
    accept = () if expect == "no-answer" or rng.random() < 0.2 else (rf"\bs{rng.randint(1, 3)}\b",)
    return Question(f"q{n}", f"question {n}", expect, accept), trace


def decided(items: Sequence[Item], h: float, a: float) -> list[tuple[Decision, Outcome]]:
    """Each question's decision and outcome at (h, a), straight from the pipeline's own `decide`."""
    found = []
    for question, trace in items:
        decision = decide(trace.candidates, trace.compares, h, a)
        found.append((decision, question.judge(decision.sentence)))
    return found


def slow_fill(items: Sequence[Item], has_answer: Sequence[float], answer: Sequence[float]) -> np.ndarray:
    """The obvious reference for `grid.fill`: every cell, every question, `decide`."""
    counts = np.zeros((len(has_answer), len(answer), len(OUTCOMES)), dtype=np.int64)
    for i, h in enumerate(has_answer):
        for j, a in enumerate(answer):
            for _, outcome in decided(items, h, a):
                counts[i, j, OUTCOMES.index(outcome)] += 1
    return counts


def judged_curve(question: Question, trace: Trace) -> JudgedCurve:
    """The quote finder's curve of a trace, judged for `question`: what the sweep reads."""
    return JudgedCurve.of(question, QUOTE_FINDER.curve(trace))


def staircase(has_answer: np.ndarray, probability: np.ndarray, quoted: np.ndarray, unquoted: np.ndarray) -> Table:
    """A `Table` of quote-finder-shaped curves made directly, for simulations: at (q, h) the top's compare
    probability `probability[q, h]` (-inf: nothing qualifies), quoted with outcome code `quoted[q, h]` up to it
    and `unquoted[q]` above."""
    bounds = np.asarray(probability, dtype=float)[..., None]
    shape = bounds.shape[:2]
    codes = np.stack([np.asarray(quoted), np.broadcast_to(np.asarray(unquoted)[:, None], shape)], axis=2)
    mask = np.stack([np.isfinite(bounds[..., 0]), np.zeros(shape, dtype=bool)], axis=2)
    return Table.of_rows(has_answer, bounds, codes.astype(np.int64), mask)


def replayed_of(runs: Sequence[Sequence[Item]], run_dir: Path = Path("run"), evidence: str | None = "synthetic",
                config: RunConfig | None = None) -> Replayed:
    """A `Replayed` of the same questions observed in each run (repeat), as if loaded from a run directory: the
    quote finder's curve of each trace (the traces are kept beside, for `items_of`)."""
    questions = [q for q, _ in runs[0]]
    record = RunRecord(questions=tuple(questions), config=config or RunConfig(), evidence=evidence, complete=True)
    replayed = Replayed(run_dir, record, QuestionSet(run_dir / "questions.yaml", "0" * 64, tuple(questions)),
                        questions, [[QUOTE_FINDER.curve(t) for _, t in run] for run in runs])
    replayed.test_traces = [[t for _, t in run] for run in runs]  # type: ignore[attr-defined]
    return replayed


def items_of(replayed: Replayed, repeat: int = 0, points: Sequence[float] = ()) -> list[Item]:
    """A replayed run's (question, trace) pairs in one repeat: the traces `replayed_of` kept, or replayed from the
    run's cache with the HAS_ANSWER_CUTOFF values `points` (and the run's default) covered, for the slow
    reference (`decided`) to apply the rule to."""
    kept = getattr(replayed, "test_traces", None)
    if kept is not None:
        return list(zip(replayed.questions, kept[repeat], strict=True))
    cache = ResponseCache(replayed.run_dir)
    config = replayed.record.config
    coverage = {"has_answer": tuple({*points, config.default_point[0]})}
    traces = [flow.replay(QUOTE_FINDER.steps(q.question, config.pipeline, coverage, repeat),
                          lambda request: cache.require(request).data) for q in replayed.questions]
    return list(zip(replayed.questions, traces, strict=True))


def random_repeats(seed: int, questions: int = 12, repeats: int = 3) -> list[list[Item]]:
    """The same questions observed `repeats` times, with probabilities that differ between repeats."""
    runs = []
    for repeat in range(repeats):
        rng = random.Random(seed * 100 + repeat)
        run = [random_item(rng, n) for n in range(questions)]
        if runs:  # the labels are the questions'; only the evidence differs between repeats
            run = [(first[0], trace) for first, (_, trace) in zip(runs[0], run, strict=True)]
        runs.append(run)
    return runs


def mutations(text: str, pieces: Any) -> Any:
    """A hypothesis strategy: `text` with a few of `pieces` (a strategy of strings) inserted, deleted or replaced at
    random places. Shared by the fuzz tests of every parser a user's files reach."""
    from hypothesis import strategies as st

    def apply(edits: list[tuple[float, int, str]]) -> str:
        changed = text
        for where, cut, piece in edits:
            at = int(where * len(changed))
            changed = changed[:at] + piece + changed[at + cut:]
        return changed

    return st.lists(st.tuples(st.floats(0, 1), st.integers(0, 12), pieces), min_size=1, max_size=6).map(apply)


def mc_error(level: float, draws: int) -> float:
    """The Monte-Carlo standard error of a rate `level` estimated from `draws` independent draws."""
    return float(np.sqrt(level * (1 - level) / draws))


def tables_of(h: np.ndarray, thresholds: np.ndarray, probability: np.ndarray, codes: np.ndarray,
              unquoted: np.ndarray) -> Table:
    """One repeat's `Table` for questions with k candidates each: candidate j qualifies while
    HAS_ANSWER_CUTOFF <= thresholds[q, j] (ascending in j), the top of a set is its first qualifying
    candidate, with compare probability probability[q, j] and outcome code codes[q, j] when quoted."""
    k = thresholds.shape[1]
    which = (h[None, None, :] > thresholds[:, :, None]).sum(axis=1)  # (Q, H): the first qualifying candidate
    top = np.minimum(which, k - 1)
    p = np.where(which >= k, -np.inf, np.take_along_axis(probability, top, axis=1))
    return staircase(h, p, np.take_along_axis(codes, top, axis=1), unquoted)


def checked_help(main: Callable[[list[str]], int], words: list[str], parser: argparse.ArgumentParser,
                 out: pytest.CaptureFixture[str]) -> str:
    """`main([*words, "--help"])`'s help, checked: exit 0, a screen's worth (at most `SCREEN` lines of at most 100
    columns), ending with two examples `quotefinder VERB ...` that `parser` (the verb's) accepts."""
    assert main([*words, "--help"]) == 0
    text = out.readouterr().out
    lines = text.rstrip("\n").splitlines()
    assert len(lines) <= SCREEN, f"{len(lines)} lines"
    assert all(len(line) <= 100 for line in lines), [line for line in lines if len(line) > 100]
    assert lines[-3] == "examples:", lines[-3:]
    for line in lines[-2:]:
        example = shlex.split(line)
        assert example[0] == "quotefinder", line
        example = example[2:example.index(">")] if ">" in example else example[2:]
        parser.parse_args(example)  # a usage error would exit
    return text


@pytest.fixture
def config_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A project configuration is looked for as a user's command looks for it (from the current directory up)."""
    monkeypatch.delenv("QUOTEFINDER_CONFIG", raising=False)
