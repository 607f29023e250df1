"""A run directory: `run.json`, the typed `RunRecord` of what was recorded and how, beside the cache.

`RunRecord.load` parses and checks run.json (every field, with the file named in any error), the
rest of the code reads attributes, and `RunRecord.save` writes it atomically, and only when
something other than times and request counts changed, so a rerun that sends nothing leaves a
committed run byte-identical.

    {"format": "quotefinder-run/1", "code_version": ..., "pipeline_version": 1,
     "cache_format": "quotefinder-cache/1", "evidence": "live" | "synthetic", "complete": true,
     "questions_file": {"path": <relative to the run>, "sha256": ...},
     "questions": [{"id", "question", "expect", "accept"}, ...],
     "config": {"base_url_host", "model", "max_results", "max_tokens_per_page", "has_answer_cutoff",
                "answer_cutoff", "min_sentences", "has_answer_range": [lo, hi], "repeats" (when > 1),
                "system": "quote-finder", "pipeline": {...every value, resolved...}, "pipeline_digest"},
     "started_at", "finished_at", "requests": {"sent", "from_cache", "retries", "failed"},
     "responses", "input_tokens", "errors": [{"id", "repeat", "error", "pending" (when true)}, ...],
     "stopped" (when the last recording stopped short): "max-requests" | "interrupt" | "error",
     "refresh" (a refresh: `eval.py --refresh RUN --sample N`): {"run": <RUN relative to this run>,
                "run_json_sha256": <of RUN's run.json then>, "run_recorded": [RUN's started_at, finished_at],
                "sample": N, "seed": S, "strata": {label: [sampled, of]}, "began": <when it was first invoked>}}

That is the quote finder's config (the keys its runs have always had: `System.legacy`); another system's holds
`base_url_host`, `ranges` (each recorded axis's values: {name: [value or [lo, hi], ...]}), `repeats`, `system`,
`pipeline` and `pipeline_digest`. `pipeline` is the pipeline's `as_json()` and `pipeline_digest` its digest (a
digest that does not match is refused: run.json was edited); a quote finder run.json written before pipelines
existed has neither and reads as the recipe's pipeline with its flat `model`, `max_results`,
`max_tokens_per_page` and `min_sentences` (`Legacy.flat`).

An error with `"pending": true` is a question (repeat) that did not fail: the recording stopped before it
was done (`stopped` says why), and a rerun records it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import json
import math
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from .. import __version__
from ..core.errors import InputError, RunDirError, StorageError
from ..core.plugin import Legacy, System
from ..core.registry import DEFAULT_SYSTEM, axis_spec, is_known, known_systems
from ..core.registry import system as system_named
from ..core.storage import linked, private_dir, read_file, write_private
from ..core.textsafe import is_unicode, shown
from ..questions import EXPECTS, Question, QuestionSet, labels_allowed
from .cache import FORMAT as CACHE_FORMAT
from .received import EVIDENCE

RUN_FORMAT = "quotefinder-run/1"
PIPELINE_VERSION = 1  # bump when a request body or the decision rule changes
RUN_FILE = "run.json"
MAX_RUN_BYTES = 1 << 30  # run.json lists every question and error: 100,000 questions take about 30 MB

_VOLATILE = ("started_at", "finished_at", "requests")  # may differ without run.json being rewritten
_VERSIONS = ("format", "code_version", "pipeline_version", "cache_format")
# Why a recording stopped before every question was recorded, in run.json, and in words.
STOPS = {"max-requests": "stopped by --max-requests", "interrupt": "interrupted", "error": "stopped by an error"}


def run_json_digest(run_dir: Path) -> str:
    """The SHA-256 of a run's run.json as it is on disk: how a refresh names the recording it sampled from."""
    return hashlib.sha256(read_file(Path(run_dir) / RUN_FILE, MAX_RUN_BYTES)).hexdigest()


@dataclass(frozen=True)
class QuestionsFile:
    """The question file a run was recorded from: its path relative to the run, and its SHA-256."""

    path: str
    sha256: str


@dataclass(frozen=True)
class Refresh:
    """What a refresh run refreshes: the original run (its path relative to the refresh run, the SHA-256 of its
    run.json when the refresh began, when it was recorded) and how its questions were sampled: `sample` of them,
    drawn with `seed`, stratified by label (`strata`: each label's questions sampled and how many the original
    holds, the label of an unlabelled question being '')."""

    run: str
    run_json_sha256: str
    run_recorded: tuple[str, str]
    sample: int
    seed: int
    strata: tuple[tuple[str, int, int], ...]
    began: str = ""  # when the refresh was first invoked (a resume keeps it): its place in a monitored sequence

    def as_json(self) -> dict[str, Any]:
        return {"run": self.run, "run_json_sha256": self.run_json_sha256, "run_recorded": list(self.run_recorded),
                "sample": self.sample, "seed": self.seed,
                "strata": {label: [taken, held] for label, taken, held in self.strata}, "began": self.began}

    def origin(self, run_dir: Path) -> Path:
        """The original run's directory, as reached from here."""
        return Path(os.path.relpath(os.path.normpath(Path(run_dir).resolve() / self.run)))


@dataclass(frozen=True)
class RunConfig:
    """How the run asked: the API host, the system and its pipeline (model, search settings, wording), how many
    repeats of each request, and what the recordings cover: each recorded axis's values (`ranges`), or, for a
    system whose run.json keeps its older keys (`System.legacy`: the quote finder's), the first axis's recorded
    span (`span`) and the default point (`point`) run.json names."""

    base_url_host: str = ""
    point: tuple[float, float] | None = None  # the default point run.json names (None: the pipeline's own)
    span: tuple[float, float] | None = None  # the first axis's recorded span, for a system with `legacy` keys
    repeats: int = 1
    system: str = DEFAULT_SYSTEM
    pipeline: Any = None  # the system's pipeline (None: its default)
    ranges: tuple[tuple[str, tuple[Any, ...]], ...] = ()  # each recorded axis's values asked for (a cutoff's also
    # as (lo, hi) spans)

    def __post_init__(self) -> None:
        under_test = system_named(self.system)
        if self.pipeline is None:
            object.__setattr__(self, "pipeline", under_test.default)
        if self.point is None and under_test.legacy is not None:  # run.json names it: the same config reads back
            object.__setattr__(self, "point", under_test.default_point(self.pipeline))

    @property
    def covered(self) -> dict[str, tuple[Any, ...]]:
        """Each recorded axis's values the recordings asked for (not a `legacy` system's: `span`): held for every
        question when the run is `complete`; a rerun asks for them again, so a run only grows."""
        return dict(self.ranges)

    @property
    def pipeline_digest(self) -> str:
        return self.pipeline.digest

    def as_json(self) -> dict[str, Any]:
        """The config as run.json holds it: the keys the system's runs have always had (`System.legacy`), else the
        values of each recorded axis (`ranges`); then the system, the resolved pipeline and its digest."""
        under_test = system_named(self.system)
        legacy = under_test.legacy
        config: dict[str, Any] = {"base_url_host": self.base_url_host}
        if legacy is None:
            config["ranges"] = {name: [_written(axis_spec(under_test, name), value) for value in values]
                                for name, values in self.ranges}
        else:
            point = dict(zip(legacy.point, self.default_point, strict=True))
            config.update({key: getattr(self.pipeline, key) if key in legacy.flat else point[key] if key in point
                           else list(self.span) if self.span else None for key in legacy.keys})
        if self.repeats != 1:  # absent means 1: runs recorded before repeats existed stay byte-identical
            config["repeats"] = self.repeats
        config.update(system=self.system, pipeline=self.pipeline.as_json(), pipeline_digest=self.pipeline_digest)
        return config

    @property
    def default_point(self) -> tuple[float, float]:
        """The run's default point: the one run.json names, else its pipeline's own."""
        if self.point is not None:
            return self.point
        return system_named(self.system).default_point(self.pipeline)

    def joined_range(self, span: tuple[float, float], complete: bool) -> tuple[float, float]:
        """`span` joined with the span this config covers, when the run was complete and the two overlap: the
        first axis's span a `legacy` system's run holds after recording `span`."""
        lo, hi = span
        before = self.span
        if complete and before is not None and before[0] <= hi and lo <= before[1]:
            lo, hi = min(lo, before[0]), max(hi, before[1])
        return lo, hi


@dataclass(frozen=True)
class RequestCounts:
    """What the last invocation that sent something did: responses sent and served from the cache,
    retries, and questions whose requests failed."""

    sent: int = 0
    from_cache: int = 0
    retries: int = 0
    failed: int = 0


@dataclass(frozen=True)
class QuestionError:
    """A question (one repeat) the run could not complete, and why: it failed, or it is `pending` (not
    recorded yet, or only partly, because the recording stopped first)."""

    id: str
    repeat: int
    error: str
    pending: bool = False

    def as_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"id": self.id, "repeat": self.repeat, "error": self.error}
        if self.pending:  # absent means false: runs recorded before it existed stay byte-identical
            found["pending"] = True
        return found


@dataclass(frozen=True)
class RunRecord:
    """run.json, typed. See the module docstring for the file's layout."""

    questions: tuple[Question, ...]
    questions_file: QuestionsFile | None = None
    config: RunConfig = dataclasses.field(default_factory=RunConfig)
    evidence: str | None = None
    complete: bool = False
    started_at: str = ""
    finished_at: str = ""
    requests: RequestCounts = RequestCounts()
    responses: int = 0
    input_tokens: int = 0
    errors: tuple[QuestionError, ...] = ()
    code_version: str = __version__
    pipeline_version: int = PIPELINE_VERSION
    cache_format: str = CACHE_FORMAT
    stopped: str | None = None  # a key of STOPS: why the last recording stopped before every question was done
    refresh: Refresh | None = None  # a refresh of another run (`eval.py --refresh`): which, and how it was sampled
    # read from a run.json written before its config recorded the system and the pipeline: the next save writes
    # them, even when nothing else changed
    outdated: bool = dataclasses.field(default=False, compare=False, repr=False)

    @property
    def synthetic(self) -> bool:
        return self.evidence == "synthetic"

    @property
    def evidence_word(self) -> str:
        """The evidence for a report: live, synthetic, or unknown (a run that holds no response)."""
        return self.evidence or "unknown"

    @property
    def repeats(self) -> int:
        return self.config.repeats

    @property
    def incompleteness(self) -> str:
        """Why the run is incomplete, in words: how many question repeats failed and how many are not
        recorded yet (and what stopped the recording); '' for a complete run."""
        if self.complete:
            return ""
        pending = sum(1 for e in self.errors if e.pending)
        parts = [f"{len(self.errors) - pending} question(s) failed"] if len(self.errors) > pending else []
        if pending:
            parts.append(f"{pending} question(s) not recorded yet ({STOPS.get(self.stopped or '', 'stopped')})")
        return "; ".join(parts) or "its last recording did not finish"

    @property
    def texts(self) -> list[str]:
        """The recorded question texts, in order."""
        return [q.question for q in self.questions]

    def question_changes(self, current: QuestionSet) -> str:
        """What changed between the recorded questions and `current`, in words ('' if nothing)."""
        old = {q.question: q for q in self.questions}
        new = current.by_text()
        added = [t for t in new if t not in old]
        removed = [t for t in old if t not in new]
        relabelled = [t for t in new if t in old and old[t].expect != new[t].expect]
        parts = [f"{len(found)} {what} ({', '.join(repr(t[:50]) for t in found[:3])}"
                 f"{', ...' if len(found) > 3 else ''})"
                 for what, found in (("added", added), ("removed", removed), ("relabelled", relabelled)) if found]
        return "; ".join(parts)

    def with_times_of(self, previous: RunRecord) -> RunRecord:
        """This record with `previous`'s times and request counts: for an invocation that sent nothing."""
        return dataclasses.replace(self, **{name: getattr(previous, name) for name in _VOLATILE})

    # ---- writing ----------------------------------------------------------------------------------

    def as_json(self) -> dict[str, Any]:
        """The record as run.json holds it, keys in the file's order."""
        return {
            "format": RUN_FORMAT,
            "code_version": self.code_version,
            "pipeline_version": self.pipeline_version,
            "cache_format": self.cache_format,
            "evidence": self.evidence,
            "complete": self.complete,
            "questions_file": dataclasses.asdict(self.questions_file) if self.questions_file else None,
            "questions": [q.as_record() for q in self.questions],
            "config": self.config.as_json(),
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "requests": dataclasses.asdict(self.requests),
            "responses": self.responses,
            "input_tokens": self.input_tokens,
            "errors": [e.as_json() for e in self.errors],
            **({"stopped": self.stopped} if self.stopped else {}),
            **({"refresh": self.refresh.as_json()} if self.refresh else {}),
        }

    def _stable(self) -> dict[str, Any]:
        """What a rewrite compares: everything but times, request counts and the versions that wrote it."""
        return {k: v for k, v in self.as_json().items() if k not in (*_VOLATILE, *_VERSIONS)}

    def save(self, run_dir: Path, previous: RunRecord | None = None) -> bool:
        """Write run.json unless it would equal `previous` apart from times and request counts (and `previous`
        is not `outdated`); True if written. `StorageError` when the disk refuses: the previous run.json, if
        any, is unchanged."""
        if previous is not None and not previous.outdated and previous._stable() == self._stable():
            return False
        text = json.dumps(self.as_json(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        try:
            private_dir(Path(run_dir))
            write_private(Path(run_dir) / RUN_FILE, text.encode())
        except OSError as error:
            raise StorageError(f"{run_dir}: cannot write {RUN_FILE} ({error.strerror or error}); the previous "
                               "one, if any, is unchanged. Free some space or fix the permissions, then rerun"
                               ) from None
        return True

    # ---- reading ----------------------------------------------------------------------------------

    @classmethod
    def load(cls, run_dir: Path, advice: str = "choose another --run DIR") -> RunRecord | None:
        """The run's record, or None for a directory that does not exist or is empty (a new run).
        `RunDirError` names the file and what is wrong with it; `advice` says what to do when the path
        is not a run at all."""
        run_dir = Path(run_dir)
        path = run_dir / RUN_FILE
        if not path.exists():
            if run_dir.exists() and not run_dir.is_dir():
                raise RunDirError(f"{run_dir}: is a file, not a run directory; {advice}")
            if run_dir.exists() and any(run_dir.iterdir()):
                raise RunDirError(f"{run_dir}: has files but no {RUN_FILE}, so it is not a run; {advice}")
            return None
        try:
            data = json.loads(read_file(path, MAX_RUN_BYTES).decode("utf-8"))
        except (OSError, ValueError) as error:
            raise RunDirError(
                f"{path}: cannot be read as a run record ({error}); restore it from version control"
            ) from None
        except RecursionError:  # the json module parses nesting by recursion: `[[[[...` exhausts the stack
            raise RunDirError(f"{path}: is nested too deeply to be a run record (a run record nests a few levels); "
                              "restore it from version control") from None
        if not isinstance(data, dict) or data.get("format") != RUN_FORMAT:
            found = data.get("format") if isinstance(data, dict) else None
            raise RunDirError(f"{path}: run format {shown(found)}; this version reads {RUN_FORMAT!r}")
        try:
            record = _parse(data)
        except _Bad as problem:
            raise RunDirError(f"{path}: {problem}; restore it from version control or record into a new "
                              "run directory") from None
        if record.cache_format != CACHE_FORMAT:
            raise RunDirError(
                f"{path}: responses were saved in cache format {shown(record.cache_format)}, this version reads "
                f"{CACHE_FORMAT!r}; record into a new run directory or use the version that wrote it"
            )
        return record

    @classmethod
    def require(cls, run_dir: Path) -> RunRecord:
        """`load`, for a directory that must already be a run (what the sweep reads)."""
        advice = "give the run directory `quotefinder record` recorded into, e.g. runs/ten"
        record = cls.load(run_dir, advice)
        if record is None:
            raise RunDirError(f"{run_dir}: no {RUN_FILE} here, so it is not a run; {advice}, or record one with "
                              "`quotefinder record QUESTIONS --run DIR`")
        return record


class _Bad(Exception):
    """A field of run.json that is missing or of the wrong type; the message names it."""


_KINDS: dict[str, tuple[tuple[type, ...], str]] = {
    "text": ((str,), "text"),
    "flag": ((bool,), "true or false"),
    "count": ((int, float), "a whole number"),
    "number": ((int, float), "a number"),
    "list": ((list,), "a list"),
    "object": ((dict,), "an object"),
    "object or null": ((dict, type(None)), "an object"),
    "list or null": ((list, type(None)), "a list"),
    "text or null": ((str, type(None)), "text"),
}


def _get(data: dict[str, Any], name: str, kind: str, default: Any, where: str = "") -> Any:
    """`data[name]`, checked to be of `kind` (a key of `_KINDS`; true and false are never numbers);
    `default` when absent."""
    if name not in data:
        return default
    value = data[name]
    types, words = _KINDS[kind]
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        raise _Bad(f"`{where}{name}` is {shown(value)}, not {words}")
    if isinstance(value, str) and not is_unicode(value):  # a lone surrogate: no file or terminal can take it
        raise _Bad(f"`{where}{name}` is not valid Unicode (a lone surrogate)")
    if kind == "count":  # 3.0 is the whole number 3; 3.5, NaN and -1 are no count
        if isinstance(value, float):
            value = int(value) if math.isfinite(value) and value.is_integer() else -1
        whole = int(value)
        if whole < 0:
            raise _Bad(f"`{where}{name}` is {shown(value)}, not {words}")
        return whole
    if kind == "number" and isinstance(value, float) and not math.isfinite(value):
        raise _Bad(f"`{where}{name}` is {shown(value)}, not a finite number")
    return value


def _parse(data: dict[str, Any]) -> RunRecord:
    evidence = data.get("evidence")
    if evidence is not None and evidence not in EVIDENCE:
        raise _Bad(f"`evidence` is {shown(evidence)}, not live or synthetic")
    stopped = _get(data, "stopped", "text or null", None)
    if stopped is not None and stopped not in STOPS:
        raise _Bad(f"`stopped` is {shown(stopped)}, not one of {', '.join(STOPS)}")
    given = _get(data, "questions_file", "object or null", None)
    questions_file = None if given is None else QuestionsFile(
        _get(given, "path", "text", "", "questions_file."), _get(given, "sha256", "text", "", "questions_file."))
    config = _get(data, "config", "object", {})
    under_test = system_named(_system(config))
    run_config = _other_config(config, under_test) if under_test.legacy is None else \
        _legacy_config(config, under_test, under_test.legacy)
    requests = _get(data, "requests", "object", {})
    return RunRecord(
        questions=tuple(_question(item, n) for n, item in enumerate(_get(data, "questions", "list", []))),
        questions_file=questions_file,
        config=run_config,
        evidence=evidence,
        complete=_get(data, "complete", "flag", False),
        started_at=_get(data, "started_at", "text", ""),
        finished_at=_get(data, "finished_at", "text", ""),
        requests=RequestCounts(**{name: _get(requests, name, "count", 0, "requests.")
                                  for name in ("sent", "from_cache", "retries", "failed")}),
        responses=_get(data, "responses", "count", 0),
        input_tokens=_get(data, "input_tokens", "count", 0),
        errors=tuple(_error(item) for item in _get(data, "errors", "list", [])),
        code_version=_get(data, "code_version", "text", ""),
        pipeline_version=_get(data, "pipeline_version", "count", 0),
        cache_format=_get(data, "cache_format", "text or null", None) or "",
        stopped=stopped,
        refresh=_refresh(_get(data, "refresh", "object or null", None)),
        outdated=not all(name in config for name in ("system", "pipeline", "pipeline_digest")),
    )


def _refresh(given: dict[str, Any] | None) -> Refresh | None:
    if given is None:
        return None
    where = "refresh."
    recorded = _get(given, "run_recorded", "list", [], where)
    strata = _get(given, "strata", "object", {}, where)
    if len(recorded) != 2 or not all(isinstance(t, str) for t in recorded):
        raise _Bad("`refresh.run_recorded` is not [started_at, finished_at]")
    found = []
    for label, pair in strata.items():
        if label not in ("", *EXPECTS) or not isinstance(pair, list) or len(pair) != 2 or not all(
                isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in pair) or pair[0] > pair[1]:
            raise _Bad(f"`refresh.strata` has {shown(label)}: {shown(pair)}, not a label's [sampled, of]")
        found.append((label, pair[0], pair[1]))
    run = _get(given, "run", "text", "", where)
    if not run:
        raise _Bad("`refresh.run` names no run")
    return Refresh(run, _get(given, "run_json_sha256", "text", "", where), (recorded[0], recorded[1]),
                   _get(given, "sample", "count", 0, where), _get(given, "seed", "count", 0, where), tuple(found),
                   _get(given, "began", "text", "", where))


def _legacy_config(config: dict[str, Any], under_test: System, legacy: Legacy) -> RunConfig:
    """The config of a run of a system whose run.json keeps its older keys (`System.legacy`): the first axis's
    recorded span, the default point and the pipeline (`_pipeline`)."""
    span = _get(config, legacy.span, "list or null", None, "config.")
    if span is not None and (len(span) != 2 or any(isinstance(v, bool) or not isinstance(v, int | float)
                                                   for v in span)):
        raise _Bad(f"`config.{legacy.span}` is {shown(span)}, not [LO, HI]")
    if span is not None and not 0 <= span[0] <= span[1] <= 1:
        raise _Bad(f"`config.{legacy.span}` is {shown(span)}, not 0 <= LO <= HI <= 1")
    pipeline = _pipeline(config, under_test, legacy)
    default = under_test.default_point(pipeline)
    point = tuple(_get(config, key, "number", value, "config.") for key, value in zip(legacy.point, default,
                                                                                      strict=True))
    for key, value in zip(legacy.point, point, strict=True):
        if not 0 <= value <= 1:
            raise _Bad(f"`config.{key}` is {value!r}, not a cutoff in [0, 1]")
    return RunConfig(
        base_url_host=_get(config, "base_url_host", "text", "", "config."),
        point=(point[0], point[1]),
        span=(span[0], span[1]) if span is not None else None,
        repeats=max(1, _get(config, "repeats", "count", 1, "config.")),
        system=under_test.name,
        pipeline=pipeline,
    )


def _other_config(config: dict[str, Any], under_test: System) -> RunConfig:
    """The config of a run of a system that records `ranges`: its pipeline, read strictly (its digest must be the
    recorded one), and the values of each recorded axis it covers."""
    if "pipeline" not in config:
        raise _Bad("`config.pipeline` is missing")
    pipeline = _recorded(config, under_test.pipeline_type)
    given = _get(config, "ranges", "object", {}, "config.")
    ranges = []
    for axis, values in sorted(given.items()):
        try:
            spec = axis_spec(under_test, axis)
        except KeyError as unknown:
            raise _Bad(f"`config.ranges`: {unknown.args[0]}") from None
        if not isinstance(values, list) or not spec.recorded:
            raise _Bad(f"`config.ranges.{axis}` is {shown(values)}, not a list of the values recorded")
        try:
            ranges.append((axis, covered_items([_span(spec, value) if isinstance(value, list) else spec.read(value)
                                                for value in values])))
        except ValueError as error:
            raise _Bad(f"`config.ranges.{axis}`: {error}") from None
    return RunConfig(base_url_host=_get(config, "base_url_host", "text", "", "config."),
                     repeats=max(1, _get(config, "repeats", "count", 1, "config.")), system=under_test.name,
                     pipeline=pipeline, ranges=tuple(ranges))


def _system(config: dict[str, Any]) -> str:
    """The recorded system: absent (a run recorded before systems existed) is the default one."""
    system = _get(config, "system", "text", DEFAULT_SYSTEM, "config.")
    if not is_known(system):
        raise _Bad(f"`config.system` is {shown(system)}, not a system this version knows (the systems are: "
                   f"{', '.join(known_systems())})")
    return system


def _pipeline(config: dict[str, Any], under_test: System, legacy: Legacy) -> Any:
    """The recorded pipeline. A run recorded before pipelines existed holds only the flat keys (`legacy.flat`): the
    system's default pipeline with those values. Otherwise the pipeline is read strictly, its digest must be the
    recorded one (else run.json was edited), and the flat keys, when present, must agree with it."""
    default = under_test.default
    flat = {name: _get(config, name, "text" if isinstance(getattr(default, name), str) else "count",
                       getattr(default, name), "config.")
            for name in legacy.flat if name in config}
    if "pipeline" not in config:
        if "pipeline_digest" in config:
            raise _Bad("`config.pipeline_digest` is recorded without `config.pipeline`")
        pipeline = dataclasses.replace(default, **flat)
        try:
            under_test.pipeline_type.from_json(pipeline.as_json())  # the same checks as a recorded pipeline's
        except InputError as error:
            raise _Bad(f"`config` holds a value no pipeline can have ({str(error).removeprefix('`config.pipeline`: ')}"
                       ")") from None
        return pipeline
    pipeline = _recorded(config, under_test.pipeline_type)
    for name, value in flat.items():
        if value != getattr(pipeline, name):
            raise _Bad(f"`config.{name}` is {shown(value)}, but the recorded pipeline's is "
                       f"{shown(getattr(pipeline, name))}: run.json was edited")
    return pipeline


def _recorded(config: dict[str, Any], kind: Any) -> Any:
    """`config.pipeline` read strictly as a pipeline of `kind` (its class: `from_json`), whose digest must be the
    recorded `pipeline_digest` (else run.json was edited)."""
    try:
        pipeline = kind.from_json(config["pipeline"])
    except InputError as error:
        raise _Bad(str(error)) from None
    digest = _get(config, "pipeline_digest", "text", None, "config.")
    if digest != pipeline.digest:
        raise _Bad(f"`config.pipeline_digest` is {shown(digest)}, but the recorded pipeline's digest is "
                   f"{pipeline.digest!r}: run.json was edited")
    return pipeline


def covered_items(values: Iterable[Any]) -> tuple[Any, ...]:
    """An axis's recorded values, each once, in a stable order: the points ascending, then any (lo, hi) spans."""
    unique = set(values)
    points = sorted(float(v) for v in unique if not isinstance(v, tuple))
    return (*points, *sorted(v for v in unique if isinstance(v, tuple)))


def _written(spec: Any, value: Any) -> Any:
    """A recorded value as run.json holds it: a span [lo, hi], or the axis's own writing of a point."""
    return list(value) if isinstance(value, tuple) else spec.written(value)


def _span(spec: Any, value: list[Any]) -> tuple[float, float]:
    """A recorded span of a cutoff axis, [lo, hi]; `ValueError` otherwise."""
    if spec.kind != "cutoff" or len(value) != 2:
        raise ValueError(f"{value!r} is not a value of {spec.name}")
    lo, hi = spec.read(value[0]), spec.read(value[1])
    if lo > hi:
        raise ValueError(f"{value!r} is not a span [LO, HI] with LO <= HI")
    return lo, hi


def recorded_system(run_dir: Path | str) -> str | None:
    """The system a run directory's run.json names (the quote finder when it names none), read without checking
    the rest (the whole file is read and checked when the run is opened); None without a readable run.json or
    with a system this version does not know."""
    try:
        named = orjson.loads(read_file(Path(run_dir) / RUN_FILE, MAX_RUN_BYTES))["config"].get("system",
                                                                                    DEFAULT_SYSTEM)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None  # said by the full reading, with the file named
    return named if is_known(named) else None


def _question(item: Any, n: int) -> Question:
    """A recorded question: every field present, as a question file would have it (judging relies on them)."""
    if type(item) is dict and "expect" in item:  # the common case, checked at once: what `_checked_question` takes
        qid, text, expect = item.get("id"), item.get("question"), item["expect"]
        accept: Any = item.get("accept")  # (a list of text once `labels_allowed` says so)
        if (type(qid) is str and type(text) is str and qid.isascii() and text.isascii()
                and labels_allowed(expect, accept) and all(p.isascii() for p in accept)):
            try:
                return Question(qid, text, expect, tuple(accept))
            except (re.error, RecursionError, OverflowError):
                pass  # said by the full check
    return _checked_question(item, n)


def _checked_question(item: Any, n: int) -> Question:
    """`_question`, every field checked in turn, naming the first that is wrong."""
    where = f"questions[{n}]."
    if not isinstance(item, dict):
        raise _Bad("`questions` is not a list of recorded questions")
    missing = [name for name in ("id", "question", "expect", "accept") if name not in item]
    if missing:
        raise _Bad(f"`{where}` has no `{missing[0]}`")
    expect = _get(item, "expect", "text or null", None, where)  # null: an unlabelled question
    accept = _get(item, "accept", "list", None, where)
    if not labels_allowed(expect, accept) or not all(is_unicode(p) for p in accept):
        raise _Bad(f"`{where}expect` or `{where}accept` is not what a question file allows")
    try:
        return Question(_get(item, "id", "text", None, where), _get(item, "question", "text", None, where), expect,
                        tuple(accept))
    except re.error as error:
        raise _Bad(f"`{where}accept` holds an invalid regex ({error})") from None
    except (RecursionError, OverflowError):  # nested too deeply, or a repeat count too large, to compile
        raise _Bad(f"`{where}accept` holds an invalid regex (too deeply nested or too large to compile)") from None


def _error(item: Any) -> QuestionError:
    if not isinstance(item, dict):
        raise _Bad("`errors` must be a list of objects")
    where = "errors[]."
    return QuestionError(_get(item, "id", "text", "", where), _get(item, "repeat", "count", 0, where),
                         _get(item, "error", "text", "", where), _get(item, "pending", "flag", False, where))


WRITTEN = ("responses", "refused")  # the folders a recording writes into, each of folders named by two hex digits


def _linked_in(run_dir: Path) -> Path | None:
    """The first link a recording into `run_dir` would write through (`storage.linked`): the run directory or a
    folder above it below the current directory, or a folder it writes into (`WRITTEN`, and their subfolders)."""
    if (found := linked(run_dir)) is not None:
        return found
    for name in WRITTEN:
        folder = run_dir / name
        if folder.is_symlink():
            return folder
        if folder.is_dir():
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_symlink():
                        return Path(entry.path)
    return None


@contextlib.contextmanager
def locked(run_dir: Path) -> Iterator[None]:
    """Hold an exclusive lock on the run so two recordings cannot interleave their run.json; `RunDirError` when a
    folder it would write into is a symbolic link (`_linked_in`): a commit can put one there, pointing at a folder
    of the user's, and a recording writes nothing through a link it did not make."""
    run_dir = Path(run_dir)
    if (link := _linked_in(run_dir)) is not None:
        raise RunDirError(f"{run_dir}: {link} is a symbolic link (to {os.readlink(link)}), and a recording writes "
                          "nothing through a link it did not make: record into a run directory of its own "
                          "(--run DIR), or remove the link")
    try:
        private_dir(run_dir)
        fd = os.open(run_dir, os.O_RDONLY)  # the directory itself: no lock file to clutter the run
    except OSError as error:
        raise RunDirError(f"{run_dir}: cannot create or open the run directory ({error.strerror or error})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunDirError(f"{run_dir}: another recording is writing into this run; wait for it to finish") from None
        yield
    finally:
        os.close(fd)
