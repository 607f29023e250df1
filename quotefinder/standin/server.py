"""A stand-in for the Search and Decisions APIs: a real HTTP server on loopback, for tests and demos.

    python -m quotefinder.standin scenarios/ten.yaml --port 8765
    PERPLEXITY_BASE_URL=http://127.0.0.1:8765 PERPLEXITY_API_KEY=any python eval.py questions/ten.yaml

It serves `POST /search` and `POST /v1/decisions` (and, for the other systems, `POST /api/answer`, see
`FakeApi.answer`, and `POST /chat/completions`, see `FakeApi.summarize`) from a scenario file of invented
pages and probabilities, checks request bodies the way the real API does (a model other than the pipeline's,
an unknown field, a choice over more than 255 options: 400; `--pipeline FILE` serves a variant's model),
wants a bearer key (401 without one, or with another key than `--key`), and marks every response with
`x-quotefinder-evidence: synthetic`, which is how a recording knows its evidence is synthetic whatever host
served it.

Scenario format (YAML or JSON):

    jitter: 0.004            # optional: compare probabilities move by up to this with the candidate set
    repeat_jitter: 0.02      # optional: an identical request asked again gets answers moved by up to this
                             # (the first time, none): what repeats of a recording observe
    questions:
      - question: How many bones are in the adult human body?
        jitter: 0                # optional: this question's own jitter
        results:             # in search order; at most max_results are served
          - title: Bones of the human body
            url: https://example.org/bones
            date: "2024-01-01"          # optional
            snippet: "..."               # the page text the sentences are split from
            choice: 2                    # the sentence the rank request picks: a number, or a text fragment
            probability: 0.98            # that sentence's choice probability (default 0.9)
            confidence: 0.97             # default: probability
            has_answer: 0.99             # the result's has_answer probability (default 0)
            answers: 0.97                # its candidate's compare probability (default 0)

A query the scenario does not know gets no results. A rank or compare request the scenario cannot
place gets deterministic made-up probabilities, derived from the request.

Later (`--noise`, `--shift`, `--reorder`, `--unsupported`, seeded by `--later-seed`; `later`): the scenario as
the APIs might serve it weeks after a recording, for refreshes (`eval.py --refresh`) to catch or to pass. Each
page's has_answer and compare probabilities move by up to --noise either way (pure noise, the second decimal;
less within --noise of 0 or 1, so that the noise is never clipped and stays unbiased)
and by --shift (a drift: negative, the API grew less sure); a share --reorder of the questions get their results
in another order; and a share --unsupported lose their support: the page their best answer came from is rewritten
(its digits changed, or, with none, its answering sentence replaced) while the API still rates it as before, so
its quote becomes wrong.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import random
import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import yaml

from ..core.errors import InputError
from ..core.perplexity import DECISIONS_PATH, MODEL, SEARCH_PATH
from ..core.pipelinefile import load_pipeline_file
from ..core.requests import canonical_json
from ..oneshot import contract as summarizing
from ..quoteanswer import contract as answering
from ..recipe import sentences
from ..recipe.config import RECIPE, QuoteFinderPipeline

SYNTHETIC_HEADERS = {"x-quotefinder-evidence": "synthetic"}
SEARCH_FIELDS = {"query", "max_results", "max_tokens_per_page"}
DECISIONS_FIELDS = {"model", "state", "questions"}
ANSWER_FLOOR = 0.45  # the quote-answer stand-in's least passage score worth quoting
CHAT_FIELDS = {"model", "messages", "temperature", "max_tokens"}
SOURCE_TAG = re.compile(r"<source>\n\[(\d+)\] (\S*)\n")
ANSWER_FIELDS = {"query", "q", "tier", "limit", "passages", "format", "domain", "recency", "category"}
MAX_OPTIONS = 255


class ScenarioError(Exception):
    """A scenario file is unreadable or breaks its schema; the message names the question and result."""


def bearer(authorization: str | None) -> str:
    """The key of an `Authorization: Bearer KEY` header, '' if there is none."""
    if not authorization or not authorization.startswith("Bearer "):
        return ""
    return authorization.removeprefix("Bearer ").strip()


def _unit(*parts: object) -> float:
    """A deterministic number in [0, 1) from the parts."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass
class Page:
    title: str
    url: str
    snippet: str
    date: str | None
    choice: int | str
    probability: float
    confidence: float
    has_answer: float
    answers: float
    split_sentences: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.split_sentences = frozenset(sentences.split(self.snippet))

    def as_result(self) -> dict[str, Any]:
        return {"title": self.title, "url": self.url, "snippet": self.snippet, "date": self.date}


@dataclass
class Scenario:
    """Pages and probabilities per question."""

    questions: dict[str, list[Page]] = field(default_factory=dict)
    jitter: float = 0.0
    jitters: dict[str, float] = field(default_factory=dict)  # per-question overrides
    repeat_jitter: float = 0.0  # how much an identical request's answers move when it is asked again


def _number(value: Any, where: str, default: float | None = None) -> float:
    if value is None and default is not None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ScenarioError(f"{where} must be a probability in [0, 1], got {value!r}")
    return float(value)


def load_scenario(path: Path | str) -> Scenario:
    """Read a scenario file; `ScenarioError` names the question and result that are wrong."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        data = json.loads(text) if path.suffix == ".json" else yaml.load(text, Loader=loader)
    except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError) as error:
        raise ScenarioError(f"{path}: cannot be read as a scenario ({error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        raise ScenarioError(f"{path}: needs a `questions:` list")
    scenario = Scenario(jitter=_number(data.get("jitter", 0.0), f"{path}: jitter"),
                        repeat_jitter=_number(data.get("repeat_jitter", 0.0), f"{path}: repeat_jitter"))
    for qn, item in enumerate(data["questions"], start=1):
        if not isinstance(item, dict) or not isinstance(item.get("question"), str):
            raise ScenarioError(f"{path}: question {qn} needs `question:` text")
        pages = []
        for rn, page in enumerate(item.get("results") or [], start=1):
            where = f"{path}: question {qn} ({item['question'][:40]!r}), result {rn}"
            if not isinstance(page, dict) or not all(isinstance(page.get(k), str) for k in ("title", "url", "snippet")):
                raise ScenarioError(f"{where} needs `title`, `url` and `snippet` text")
            choice = page.get("choice", 1)
            if isinstance(choice, bool) or not isinstance(choice, int | str):
                raise ScenarioError(f"{where}: `choice` must be a sentence number or a text fragment")
            probability = _number(page.get("probability"), f"{where}: probability", 0.9)
            date = page.get("date")
            pages.append(Page(
                page["title"], page["url"], page["snippet"], None if date is None else str(date), choice, probability,
                _number(page.get("confidence"), f"{where}: confidence", probability),
                _number(page.get("has_answer"), f"{where}: has_answer", 0.0),
                _number(page.get("answers"), f"{where}: answers", 0.0),
            ))
        scenario.questions[item["question"]] = pages
        if "jitter" in item:
            scenario.jitters[item["question"]] = _number(item["jitter"], f"{path}: question {qn}: jitter")
    return scenario


@dataclass(frozen=True)
class Later:
    """How the scenario has changed by the time a refresh asks (see the module docstring); all off by default."""

    seed: int = 0
    noise: float = 0.0  # each page's has_answer and answers move by a seeded amount in [-noise, noise]
    shift: float = 0.0  # ... and by this
    reorder: float = 0.0  # the share of questions whose results are served in another (seeded) order
    unsupported: float = 0.0  # the share of questions whose best page no longer says its answer


REWRITTEN = "This section was rewritten and no longer gives that figure."


def _rewritten(text: str) -> str:
    """`text` with every digit changed (0 to 5, 1 to 6, ...), so a figure it gave is no longer the figure."""
    return text.translate(str.maketrans("0123456789", "5678901234"))


def later(scenario: Scenario, change: Later) -> Scenario:
    """The scenario as served `change` later: a new scenario, the original untouched."""
    def moved(value: float, *what: object) -> float:
        reach = min(change.noise, value, 1.0 - value)  # symmetric: noise that is never clipped is unbiased noise
        wobble = reach * (2 * _unit(change.seed, *what) - 1) if reach > 0 else 0.0
        return min(1.0, max(0.0, round(value + change.shift + wobble, 6)))

    questions: dict[str, list[Page]] = {}
    for text, pages in scenario.questions.items():
        served = [dataclasses.replace(page, has_answer=moved(page.has_answer, text, page.url, "has_answer"),
                                      answers=moved(page.answers, text, page.url, "answers")) for page in pages]
        if pages and _unit(change.seed, text, "unsupported") < change.unsupported:
            best = max(range(len(pages)), key=lambda n: (pages[n].answers, -n))
            page = served[best]
            if any(c.isdigit() for c in page.snippet):
                choice = _rewritten(page.choice) if isinstance(page.choice, str) else page.choice
                served[best] = dataclasses.replace(page, snippet=_rewritten(page.snippet), choice=choice)
            else:
                split = sentences.split(page.snippet)
                fragment = page.choice if isinstance(page.choice, str) else None
                chosen = (page.choice - 1 if isinstance(page.choice, int) and 0 < page.choice <= len(split) else
                          next((n for n, t in enumerate(split) if fragment is not None and fragment in t), 0))
                snippet = page.snippet.replace(split[chosen], REWRITTEN) if split else REWRITTEN
                served[best] = dataclasses.replace(page, snippet=snippet, choice=REWRITTEN)
        if len(served) > 1 and _unit(change.seed, text, "reorder") < change.reorder:
            random.Random(f"{change.seed}\x1f{text}").shuffle(served)
        questions[text] = served
    return dataclasses.replace(scenario, questions=questions)


@dataclass(frozen=True)
class Reply:
    """A raw reply a fault hook can substitute: status, body bytes, extra headers."""

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


class BadRequest(Exception):
    """A request the real API would refuse with 400."""


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise BadRequest(message)


def _check_decisions(body: dict[str, Any], model: str = MODEL) -> None:
    """Refuse what the real API would: unknown fields, a model other than `model` (the one it serves), ..."""
    _require(set(body) <= DECISIONS_FIELDS, f"unknown fields: {sorted(set(body) - DECISIONS_FIELDS)}")
    _require(body.get("model") == model, f"unknown model {body.get('model')!r}")
    _require(isinstance(body.get("state"), dict), "state must be an object")
    questions = body.get("questions")
    if not isinstance(questions, dict) or not questions:
        raise BadRequest("questions must be a non-empty object")
    for name, question in questions.items():
        _require(isinstance(question, dict), f"question {name!r} must be an object")
        kind, criteria = question.get("type"), question.get("criteria")
        _require(kind in ("choice", "noul"), f"question {name!r}: unknown type {kind!r}")
        _require(isinstance(question.get("instructions"), str), f"question {name!r}: instructions must be text")
        _require(isinstance(criteria, dict), f"question {name!r}: criteria must be an object")
        if kind == "choice":
            _require(1 <= len(criteria) <= MAX_OPTIONS, "Each decision needs between 1 and 255 options")
        else:
            _require(set(criteria) == {"true", "false"}, f"question {name!r}: noul criteria are `true` and `false`")
        _require(all(isinstance(v, str) for v in criteria.values()), f"question {name!r}: criteria must be text")


class FakeApi:
    """The stand-in's answers, without the network: `respond(path, body, key)` -> (status, JSON).

    Thread-safe. `requests` logs (path, body) of every request answered with 200 (with `log`; the command-line
    server keeps none, so that serving a 100,000-question recording does not hold every body in memory). It
    follows `pipeline`: it serves that pipeline's model (any other is refused, as the real API refuses a model it
    does not have) and places compare candidates among the sentences that pipeline's splitter keeps.
    """

    def __init__(self, scenario: Scenario, key: str | None = None, pipeline: QuoteFinderPipeline = RECIPE,
                 log: bool = True) -> None:
        self.scenario = scenario
        self.key = key
        self.pipeline = pipeline
        self.log = log  # keep every body in `requests` (the tests read it); off for a long-running server
        self._split: dict[int, frozenset[str]] = {}  # id(page) -> its sentences, for limits other than the recipe's
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        self._counter = 0
        self._seen: dict[bytes, int] = {}  # each body's SHA-256 -> how often it was answered: 32 bytes, not the body

    def respond(self, path: str, raw: bytes, key: str) -> tuple[int, dict[str, Any]]:
        """Answer one POST the way the real API would, 401 and 400 included."""
        if not key or (self.key is not None and key != self.key):
            return 401, {"error": {"message": "Invalid API key", "type": "unauthorized"}}
        try:
            body = json.loads(raw)
            _require(isinstance(body, dict), "the body must be a JSON object")
            if path == SEARCH_PATH:
                payload = self.search(body)
            elif path == DECISIONS_PATH:
                payload = self.decisions(body)
            elif path == answering.ANSWER_PATH:
                payload = self.answer(body)
            elif path == summarizing.CHAT_PATH:
                payload = self.summarize(body)
            else:
                return 404, {"error": {"message": f"no route {path}"}}
        except (ValueError, BadRequest) as error:
            return 400, {"error": {"message": str(error), "type": "invalid_request"}}
        with self._lock:
            if self.log:
                self.requests.append((path, body))
        return 200, payload

    def handler(self, request: httpx.Request) -> httpx.Response:
        """An `httpx.MockTransport` handler serving these answers, for unit tests."""
        status, payload = self.respond(request.url.path, request.content, bearer(request.headers.get("Authorization")))
        headers = {**SYNTHETIC_HEADERS, "x-request-id": payload.get("id", "")}
        return httpx.Response(status, json=payload, headers=headers)

    def count(self, path: str, kind: str | None = None) -> int:
        """Requests answered on `path`; for decisions, `kind` 'rank' or 'compare' narrows it."""
        with self._lock:
            served = [body for p, body in self.requests if p == path]
        if kind is None:
            return len(served)
        return sum(1 for body in served if ("best" in body.get("questions", {})) == (kind == "rank"))

    def next_id(self) -> str:
        with self._lock:
            self._counter += 1
            return f"standin-{self._counter:06d}"

    # ---- answers -------------------------------------------------------------------------------

    def search(self, body: dict[str, Any]) -> dict[str, Any]:
        _require(set(body) <= SEARCH_FIELDS, f"unknown fields: {sorted(set(body) - SEARCH_FIELDS)}")
        query, limit = body.get("query"), body.get("max_results", 10)
        if not isinstance(query, str) or not query.strip():
            raise BadRequest("query must be non-empty text")
        _require(isinstance(limit, int) and 1 <= limit <= 20, "max_results must be 1 to 20")
        _require(isinstance(body.get("max_tokens_per_page", 1024), int), "max_tokens_per_page must be an integer")
        pages = self.scenario.questions.get(query, [])[:limit]
        return {"id": self.next_id(), "results": [page.as_result() for page in pages]}

    def _page(self, question: str, url: str) -> Page | None:
        return next((p for p in self.scenario.questions.get(question, []) if p.url == url), None)

    def _again(self, seed: str, what: object, occurrence: int) -> float:
        """Noise for the `occurrence`-th identical request (none for the first): repeats differ a little."""
        if not occurrence or not self.scenario.repeat_jitter:
            return 0.0
        return self.scenario.repeat_jitter * (2 * _unit(seed, what, "again", occurrence) - 1)

    def rank(self, state: dict[str, Any], options: dict[str, str], occurrence: int = 0) -> dict[str, Any]:
        page = self._page(str(state.get("question")), str(state.get("source", {}).get("url")))
        keys = list(options)
        if page is None:
            seed = canonical_json(state).decode()
            choice = keys[int(_unit(seed, "choice") * len(keys))]
            probability, confidence, has_answer = 0.5, 0.5, _unit(seed, "has_answer")
        else:
            if isinstance(page.choice, int):
                choice = str(page.choice) if str(page.choice) in options else keys[0]
            else:
                choice = next((k for k, text in options.items() if page.choice in text), keys[0])
            probability, confidence, has_answer = page.probability, page.confidence, page.has_answer
            moved = has_answer + self._again(state["question"] + page.url, "has_answer", occurrence)
            has_answer = min(1.0, max(0.0, round(moved, 6)))
        rest = (1.0 - probability) / (len(keys) - 1) if len(keys) > 1 else 0.0
        probabilities = {k: (probability if k == choice else round(rest, 6)) for k in keys}
        return {
            "best": {"choice": choice, "confidence": confidence, "probabilities": probabilities},
            "has_answer": {"noul": has_answer},
        }

    def compare(self, state: dict[str, Any], names: list[str], body: dict[str, Any], occurrence: int = 0
                ) -> dict[str, Any]:
        question = str(state.get("question"))
        candidates = state.get("candidates", {})
        pages = self.scenario.questions.get(question, [])
        seed = canonical_json(body).decode()
        jitter = self.scenario.jitters.get(question, self.scenario.jitter)
        answers = {}
        for n, name in enumerate(names, start=1):
            sentence = candidates.get(str(n), "")
            page = next((p for p in pages if sentence in self.sentences_of(p)), None)
            base = page.answers if page is not None else _unit(question, sentence)
            shift = jitter * (2 * _unit(seed, n) - 1) + self._again(seed, n, occurrence)
            answers[name] = {"noul": min(1.0, max(0.0, round(base + shift, 6)))}
        return answers

    def sentences_of(self, page: Page) -> frozenset[str]:
        """The page's sentences as this stand-in's pipeline splits them."""
        pipeline = self.pipeline
        if (pipeline.min_chars, pipeline.max_chars, pipeline.max_sentences) == (
                RECIPE.min_chars, RECIPE.max_chars, RECIPE.max_sentences):
            return page.split_sentences
        found = self._split.get(id(page))
        if found is None:
            found = self._split[id(page)] = frozenset(pipeline.split(page.snippet))
        return found

    def _occurrence(self, body: dict[str, Any]) -> int:
        """How often this exact request was answered before (counted now)."""
        with self._lock:
            seen = hashlib.sha256(canonical_json(body)).digest()
            occurrence = self._seen.get(seen, 0)
            self._seen[seen] = occurrence + 1
        return occurrence

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The quote-answer API: the question's pages in search order, as many as the tier reads (instant 3, deep 5,
        deep_reasoning all; at most `limit`, only `domain`'s when set). Every sentence of a read page is a passage:
        the page's `choice` sentence scored its `answers`, the others half its `has_answer`, each weighted down by
        the page's rank (1 / (1 + rank / 4)) and moved by `repeat_jitter` when the request is asked again. Passages
        scoring below `ANSWER_FLOOR` are never quoted; of the rest, the best `passages`, at most two per page unless
        nothing else is left, each with its `[n]`; the pages quoted become the sources, numbered in the order the
        answer first cites them. Nothing to quote: an empty answer with a message."""
        _require(set(body) <= ANSWER_FIELDS, f"unknown fields: {sorted(set(body) - ANSWER_FIELDS)}")
        query = body.get("query", body.get("q"))
        if not isinstance(query, str) or not query.strip():
            raise BadRequest("query must be non-empty text")
        _require(len(query) <= answering.MAX_QUERY, f"query is longer than {answering.MAX_QUERY} characters")
        tier, limit, wanted = body.get("tier", "instant"), body.get("limit", 10), body.get("passages", 5)
        _require(tier in answering.TIERS, f"unknown tier {tier!r}")
        for name, value in (("limit", limit), ("passages", wanted)):
            _require(isinstance(value, int) and not isinstance(value, bool) and value >= 1,
                     f"{name} must be a whole number >= 1")
        _require(body.get("format", "json") == "json", "this stand-in answers format json only")
        domain = body.get("domain")
        pages = [page for page in self.scenario.questions.get(query, [])
                 if domain is None or httpx.URL(page.url).host.endswith(str(domain))]
        pages = pages[: min(limit, answering.MAX_LIMIT, {"instant": 3, "deep": 5}.get(tier, len(pages)))]
        occurrence = self._occurrence(body)
        scored = []
        for rank, page in enumerate(pages):
            split = sentences.split(page.snippet)
            chosen = (page.choice - 1 if isinstance(page.choice, int)
                      else next((n for n, text in enumerate(split) if page.choice in text), 0))
            for n, text in enumerate(split):
                base = page.answers if n == chosen else page.has_answer / 2
                moved = base / (1 + rank / 4) + self._again(query + page.url, n, occurrence)
                scored.append((round(moved, 6), rank, n, text))
        usable = sorted((item for item in scored if item[0] >= ANSWER_FLOOR),
                        key=lambda item: (-item[0], item[1], item[2]))
        picked: list[tuple[float, int, int, str]] = []
        for item in usable:  # at most two per page, then the cap lifts if the answer is still short
            if len(picked) < min(wanted, answering.MAX_PASSAGES) and sum(1 for p in picked if p[1] == item[1]) < 2:
                picked.append(item)
        for item in usable:
            if len(picked) < min(wanted, answering.MAX_PASSAGES) and item not in picked:
                picked.append(item)
        numbers: dict[int, int] = {}
        for _, rank, _, _ in picked:
            numbers.setdefault(rank, len(numbers) + 1)
        sources = [{"n": n, "title": pages[rank].title, "url": pages[rank].url} for rank, n in numbers.items()]
        answer = "\n\n".join(f"{text} [{numbers[rank]}]" for _, rank, _, text in picked)
        return {"id": self.next_id(), "answer": answer, "sources": sources,
                "passages": [{"source": numbers[rank], "text": text} for _, rank, _, text in picked],
                "considered": len(scored), "pages_read": [page.url for page in pages],
                "usage": {"answers": 1, "search_requests": 1, "pages_read": len(pages)},
                "message": "" if picked else "Nothing read answers this question: widen the filters or use a "
                "deeper tier."}

    def relevance(self, state: dict[str, Any], names: list[str], occurrence: int = 0) -> dict[str, Any]:
        """Each hit's relevance (`relevant_n`): its page's has_answer, moved by `repeat_jitter` when asked again;
        a hit the scenario does not know gets a made-up one."""
        question, hits = str(state.get("question")), state["hits"]
        answers = {}
        for name in names:
            hit = hits.get(name.removeprefix("relevant_"), {})
            page = self._page(question, str(hit.get("url")))
            base = page.has_answer if page is not None else _unit(question, hit.get("url"), "relevance")
            answers[name] = {"noul": min(1.0, max(0.0, round(base + self._again(question, name, occurrence), 6)))}
        return answers

    def summarize(self, body: dict[str, Any]) -> dict[str, Any]:
        """An OpenAI-compatible chat completion for the one-shot pipeline: among the numbered sources in the last
        message (`<source>` then `[n] URL`), the one whose page has the highest `answers` is quoted, its `choice`
        sentence with its [n], when that is at least 0.5; otherwise exactly NO_ANSWER."""
        _require(set(body) <= CHAT_FIELDS, f"unknown fields: {sorted(set(body) - CHAT_FIELDS)}")
        _require(isinstance(body.get("model"), str) and bool(body["model"]), "model must be non-empty text")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages or not all(
                isinstance(m, dict) and isinstance(m.get("content"), str) for m in messages):
            raise BadRequest("messages must be a non-empty list of {role, content}")
        text = messages[-1]["content"]
        question = text.partition("\n")[0].removeprefix("Question: ")
        best: tuple[float, int, Page] | None = None
        for n, url in SOURCE_TAG.findall(text):
            page = self._page(question, url)
            if page is not None and (best is None or page.answers > best[0]):
                best = (page.answers, int(n), page)
        if best is None or best[0] < 0.5:
            content = summarizing.NO_ANSWER
        else:
            split = sentences.split(best[2].snippet) or [best[2].snippet]
            choice = best[2].choice
            chosen = (split[choice - 1] if isinstance(choice, int) and 1 <= choice <= len(split)
                      else next((t for t in split if isinstance(choice, str) and choice in t), split[0]))
            content = f"{chosen} [{best[1]}]"
        tokens = sum(len(m["content"]) for m in messages) // 4
        return {"id": self.next_id(), "object": "chat.completion", "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": tokens, "completion_tokens": len(content) // 4}}

    def decisions(self, body: dict[str, Any]) -> dict[str, Any]:
        _check_decisions(body, self.pipeline.model)
        questions, state = body["questions"], body["state"]
        text = canonical_json(body).decode()
        with self._lock:
            seen = hashlib.sha256(text.encode()).digest()
            occurrence = self._seen.get(seen, 0)  # how often this exact request was answered before
            self._seen[seen] = occurrence + 1
        if "best" in questions and questions["best"]["type"] == "choice":
            answers = self.rank(state, questions["best"]["criteria"], occurrence)
        elif isinstance(state.get("hits"), dict):  # the one-shot pipeline's ranking: one relevance per hit
            answers = self.relevance(state, list(questions), occurrence)
        else:
            answers = self.compare(state, list(questions), body, occurrence)
        tokens = len(canonical_json(body).decode()) // 4
        return {"id": self.next_id(), "model": body["model"], "answers": answers, "usage": {"input_tokens": tokens}}


@dataclass(frozen=True)
class Faults:
    """Misbehaviour to inject, all off by default. A share is the probability per request (seeded)."""

    latency_s: float = 0.0  # added to every answer
    rate_limit: float = 0.0  # requests per second let through (token bucket); the rest get 429 + Retry-After
    burst: int = 0  # the bucket's size (default: a fifth of a second's worth, at least 1)
    server_errors: float = 0.0  # answered 500, 502 or 503
    drops: float = 0.0  # connection closed without an answer
    stalls: float = 0.0  # answered only after `stall_s`, longer than a client's timeout
    stall_s: float = 35.0
    html: float = 0.0  # answered 200 with an HTML page
    truncated: float = 0.0  # answered 200 with the JSON cut off mid-body and the connection closed
    seed: int = 0

    def draw(self, rng: random.Random) -> str:
        """Which fault, if any ('' for none), this request meets."""
        u = rng.random()
        for name in ("server_errors", "drops", "stalls", "html", "truncated"):
            u -= getattr(self, name)
            if u < 0:
                return name
        return ""


class TokenBucket:
    """`rate` requests per second with bursts of `size`; thread-safe."""

    def __init__(self, rate: float, size: int) -> None:
        self.rate, self.size = rate, max(1, size or int(rate / 5))
        self.tokens = float(self.size)
        self.updated = time.monotonic()
        self.lock = threading.Lock()

    def take(self) -> bool:
        with self.lock:
            now = time.monotonic()
            self.tokens = min(self.size, self.tokens + (now - self.updated) * self.rate)
            self.updated = now
            if self.tokens >= 1:
                self.tokens -= 1
                return True
            return False


class StandIn:
    """The HTTP server around a `FakeApi`. `start()` returns the base URL.

    `faults` injects misbehaviour (see `Faults`); `fault`, for tests, sees each request first and may
    return a `Reply` to send instead; `pipeline` is the pipeline it serves (see `FakeApi`).
    """

    def __init__(self, scenario: Scenario, *, key: str | None = None, host: str = "127.0.0.1", port: int = 0,
                 faults: Faults = Faults(),
                 fault: Callable[[str, dict[str, Any]], Reply | None] | None = None,
                 pipeline: QuoteFinderPipeline = RECIPE, log: bool = True) -> None:
        self.api = FakeApi(scenario, key, pipeline, log)
        self.faults = faults
        self.fault = fault
        self.bucket = TokenBucket(faults.rate_limit, faults.burst) if faults.rate_limit > 0 else None
        self._rng = random.Random(faults.seed)
        self._rng_lock = threading.Lock()
        self.injected: dict[str, int] = {}
        self._server = _Server((host, port), _handler_for(self))

    def next_fault(self) -> str:
        """The fault the next request meets: the rate limit first, then a seeded draw."""
        if self.bucket is not None and not self.bucket.take():
            name = "rate_limited"
        else:
            with self._rng_lock:
                name = self.faults.draw(self._rng)
        if name:
            with self._rng_lock:
                self.injected[name] = self.injected.get(name, 0) + 1
        return name

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def requests(self) -> list[tuple[str, dict[str, Any]]]:
        return self.api.requests

    def count(self, path: str, kind: str | None = None) -> int:
        return self.api.count(path, kind)

    def start(self) -> str:
        threading.Thread(target=self._server.serve_forever, name="standin", daemon=True).start()
        return self.base_url

    def serve(self) -> None:
        """Serve in this thread until interrupted."""
        try:
            self._server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            self._server.server_close()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> StandIn:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # the default 5 drops connections when many requests arrive at once

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (timed out, interrupted) is normal here; anything else is reported."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _handler_for(standin: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet: tests and demos read stdout
            pass

        def _reply(self, reply: Reply, cut: int | None = None) -> None:
            """Send `reply`; with `cut`, only its first `cut` bytes (Content-Length still says all)."""
            self.send_response(reply.status)
            self.send_header("Content-Length", str(len(reply.body)))
            for name, value in (*SYNTHETIC_HEADERS.items(), *reply.headers):
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(reply.body if cut is None else reply.body[:cut])

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            faults, fault = standin.faults, standin.next_fault()
            if faults.latency_s:
                time.sleep(faults.latency_s)
            if fault == "rate_limited":
                self._reply(Reply(429, b'{"error": {"message": "rate limit exceeded"}}', (("Retry-After", "1"),)))
                return
            if fault == "server_errors":
                status = (500, 502, 503)[standin.injected[fault] % 3]
                self._reply(Reply(status, b'{"error": {"message": "internal error"}}'))
                return
            if fault == "drops":
                self.close_connection = True
                return
            if fault == "html":
                self._reply(Reply(200, b"<html><body>Please sign in to continue</body></html>",
                                  (("Content-Type", "text/html"),)))
                return
            if standin.fault is not None:
                try:
                    parsed = json.loads(raw)
                except ValueError:
                    parsed = {}
                reply = standin.fault(self.path, parsed)
                if reply is not None:
                    self._reply(reply)
                    return
            status, payload = standin.api.respond(self.path, raw, bearer(self.headers.get("Authorization")))
            headers = [("Content-Type", "application/json")]
            if status == 200:
                headers.append(("x-request-id", payload["id"]))
            reply = Reply(status, json.dumps(payload).encode(), tuple(headers))
            if fault == "stalls":
                time.sleep(faults.stall_s)
            if fault == "truncated":
                self._reply(reply, cut=len(reply.body) // 2)
                self.close_connection = True
                return
            self._reply(reply)

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m quotefinder.standin", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", type=Path, help="scenario file (YAML or JSON)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks a free one)")
    parser.add_argument("--key", help="accept only this bearer key (default: any non-empty key)")
    parser.add_argument("--pipeline", type=Path, metavar="FILE",
                        help="serve this pipeline file's model and sentence limits (default: the recipe's), to "
                        "record a variant with eval.py --pipeline FILE")
    faults = parser.add_argument_group("faults (shares are probabilities per request, drawn with --seed)")
    faults.add_argument("--latency", type=float, default=0.0, metavar="S", help="seconds added to every answer")
    faults.add_argument("--rate-limit", type=float, default=0.0, metavar="R",
                        help="requests per second let through; the rest get 429 with Retry-After: 1")
    faults.add_argument("--burst", type=int, default=0, metavar="N", help="burst size of the rate limit")
    faults.add_argument("--server-errors", type=float, default=0.0, metavar="P", help="share answered 500/502/503")
    faults.add_argument("--drops", type=float, default=0.0, metavar="P", help="share of connections dropped")
    faults.add_argument("--stalls", type=float, default=0.0, metavar="P",
                        help="share answered only after --stall-seconds (longer than the client's timeout)")
    faults.add_argument("--stall-seconds", type=float, default=35.0, metavar="S", help="default 35")
    faults.add_argument("--html", type=float, default=0.0, metavar="P", help="share answered 200 with an HTML page")
    faults.add_argument("--truncated", type=float, default=0.0, metavar="P",
                        help="share answered 200 with the JSON cut off mid-body")
    faults.add_argument("--seed", type=int, default=0, help="seed of the fault draws (default 0)")
    drift = parser.add_argument_group("later (the scenario as the APIs might serve it weeks after a recording, for "
                                      "eval.py --refresh; drawn with --later-seed)")
    drift.add_argument("--noise", type=float, default=0.0, metavar="X",
                       help="each page's has_answer and compare probabilities move by up to X either way")
    drift.add_argument("--shift", type=float, default=0.0, metavar="D",
                       help="... and by D (negative: the API grew less sure)")
    drift.add_argument("--reorder", type=float, default=0.0, metavar="P",
                       help="share of questions whose results come in another order")
    drift.add_argument("--unsupported", type=float, default=0.0, metavar="P",
                       help="share of questions whose best page is rewritten so that it no longer says the answer")
    drift.add_argument("--later-seed", type=int, default=0, metavar="S", help="seed of the changes (default 0)")
    args = parser.parse_args(argv)
    injected = Faults(args.latency, args.rate_limit, args.burst, args.server_errors, args.drops, args.stalls,
                      args.stall_seconds, args.html, args.truncated, args.seed)
    try:
        _, pipeline = load_pipeline_file(args.pipeline) if args.pipeline else (None, RECIPE)
        scenario = later(load_scenario(args.scenario), Later(args.later_seed, args.noise, args.shift, args.reorder,
                                                              args.unsupported))
        standin = StandIn(scenario, key=args.key, host=args.host, port=args.port,
                          faults=injected, pipeline=pipeline, log=False)  # serves 100,000s: keeps no bodies
    except (ScenarioError, InputError, OSError) as error:
        print(f"standin: {error}", file=sys.stderr)
        return 2
    print(f"stand-in API serving {args.scenario} at {standin.base_url} (synthetic evidence)", flush=True)
    standin.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
