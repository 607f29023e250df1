"""Checking a pipeline's mapping against its system's schema (`check_section`), with every error naming the file
and the line (`in_file`) or run.json's key (`in_run`); what every system's pipeline shares (`OwnPipeline`: its
digest, reading it from a pipeline file or from run.json); and a yes/no question's two criteria (`Criteria`).

A schema is a dict of the keys in file order: a nested dict is a section, a string the kind of its value, which
`check_value` checks (or the system's own checker, falling back to it).
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

from .errors import InputError
from .perplexity import MAX_OPTIONS, MAX_SEARCH_RESULTS
from .requests import canonical_json
from .textsafe import is_unicode, shown

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")  # a pipeline's name also names its default run directory


@dataclass(frozen=True)
class Criteria:
    """What `true` and `false` mean for a yes/no (noul) question, word for word as sent."""

    true: str
    false: str

    def as_json(self) -> dict[str, str]:
        return {"true": self.true, "false": self.false}


_CRITERIA = {"true": "text", "false": "text"}
CRITERIA_SCHEMA = _CRITERIA  # a yes/no question's criteria in a schema: both texts always required
MAX_WHOLE = 2**53 - 1  # a request's whole numbers: larger ones no JSON reader holds exactly, nor orjson writes
_WORDS = {
    "name": "a name of letters, digits, `.`, `_` and `-` (it names the run directory), e.g. terse-criteria",
    "text": "non-empty text",
    "template": "non-empty text",
    "results": f"a whole number from 1 to {MAX_SEARCH_RESULTS} (the Search API's limit)",
    "positive": f"a whole number from 1 to {MAX_WHOLE} (2^53 - 1: the largest every JSON reader holds exactly)",
    "options": f"a whole number from 1 to {MAX_OPTIONS} (the Decisions API's option limit)",
}
Fail = Callable[[tuple[str, ...], str], InputError]


def _dotted(keys: tuple[str, ...]) -> str:
    return ".".join(keys)


def _key(key: Any) -> str:
    """A mapping key as written: YAML reads an unquoted `true:` as a boolean."""
    if isinstance(key, bool):
        return "true" if key else "false"
    return key if isinstance(key, str) else str(key)


def check_value(kind: str, value: Any, keys: tuple[str, ...], fail: Fail) -> Any:
    """`value` checked to be of `kind` (a key of `_WORDS`)."""
    if kind in ("name", "text", "template"):
        ok = isinstance(value, str) and bool(value.strip()) and is_unicode(value)
        if ok and kind == "name":
            ok = NAME.fullmatch(value) is not None
        if not ok:
            quote = "; put it in quotes if YAML reads it as something else" if not isinstance(value, str) else ""
            raise fail(keys, f"`{_dotted(keys)}` is {shown(value)}, not {_WORDS[kind]}{quote}")
        if kind == "template" and "{n}" not in value:
            raise fail(keys, f"`{_dotted(keys)}` must contain `{{n}}`, where each numbered item's number goes, "
                       "e.g. 'Does candidate {n} state the answer to the question?'")
        return value
    ceiling = {"results": MAX_SEARCH_RESULTS, "options": MAX_OPTIONS}.get(kind, MAX_WHOLE)
    return whole_number(value, keys, fail, ceiling, _WORDS[kind])


def whole_number(value: Any, keys: tuple[str, ...], fail: Fail, ceiling: int, words: str | None = None) -> int:
    """`value` checked to be a whole number from 1 to `ceiling` (never a boolean); the message says what it should
    be in `words` (default 'a whole number from 1 to CEILING'). Every system's schema checks counts with this."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= ceiling:
        raise fail(keys, f"`{_dotted(keys)}` is {shown(value)}, not {words or f'a whole number from 1 to {ceiling}'}")
    return value


def in_file(path: Path | str, lines: Mapping[tuple[str, ...], int] | None) -> Fail:
    """How a pipeline file's problem is said: the file, the line of the key (or of the nearest key above it)."""
    found = lines or {}

    def fail(keys: tuple[str, ...], problem: str) -> InputError:
        line = next((found[keys[:n]] for n in range(len(keys), 0, -1) if keys[:n] in found), None)
        return InputError(f"{path}{f', line {line}' if line else ''}: {problem}")

    return fail


def in_run(keys: tuple[str, ...], problem: str) -> InputError:
    """How a problem of run.json's recorded pipeline is said (the caller names the file)."""
    return InputError(f"`config.pipeline`: {problem}")


def digest_of(system: str, values: Mapping[str, Any]) -> str:
    """A pipeline's digest: SHA-256 of its system's name, a line break, and the canonical JSON of its values
    without `name` (what it sends: a renamed copy has the same digest, any other value changes it)."""
    sent = {k: v for k, v in values.items() if k != "name"}
    return hashlib.sha256(f"{system}\n".encode() + canonical_json(sent)).hexdigest()


class OwnPipeline:
    """What the pipeline of a system other than the quote finder shares (a frozen dataclass that defines
    `system`, `as_json` and `build(data, fail, strict, also)`): its digest, that it is never the recipe, and
    reading it from a pipeline file (`parse`) or from run.json (`from_json`)."""

    system: ClassVar[str]

    def as_json(self) -> dict[str, Any]:
        raise NotImplementedError

    @cached_property
    def digest(self) -> str:
        return digest_of(self.system, self.as_json())

    @property
    def is_recipe(self) -> bool:
        """Never: the recipe is the quote finder's, and a run of this system has a directory of its own."""
        return False

    @classmethod
    def build(cls, data: Any, fail: Fail, strict: bool, also: tuple[str, ...] = ()) -> Any:
        raise NotImplementedError

    @classmethod
    def parse(cls, data: Mapping[Any, Any], path: Path | str, lines: Mapping[tuple[str, ...], int] | None = None,
              also: tuple[str, ...] = ()) -> Any:
        """A pipeline from a pipeline file's mapping, every key optional; `InputError` naming the file and line."""
        return cls.build(data, in_file(path, lines), strict=False, also=also)

    @classmethod
    def from_json(cls, data: Any) -> Any:
        """run.json's recorded copy (`as_json()`), read strictly: every key present, every value checked."""
        return cls.build(data, in_run, strict=True)


Value = Callable[[str, Any, tuple[str, ...], Fail], Any]  # (kind, value, its path, fail) -> the value checked


def check_section(data: Any, schema: dict[str, Any], keys: tuple[str, ...], fail: Fail, strict: bool,
                  also: tuple[str, ...], found: dict[tuple[str, ...], Any], value: Value | None = None) -> None:
    """Check one mapping against its section of a schema (`SCHEMA`, or another system's, whose kinds `value`
    checks; the default is this one's), putting each value into `found` by its path."""
    value = value or check_value
    where = f"`{_dotted(keys)}`" if keys else "the pipeline"
    if not isinstance(data, Mapping):
        raise fail(keys, f"{where} must be a mapping of {', '.join(schema)}")
    named = {_key(k): v for k, v in data.items()}
    for key in named:
        if key not in schema:
            hint = difflib.get_close_matches(key, [*schema, *also] if not keys else list(schema), n=1)
            advice = f"did you mean `{hint[0]}`?" if hint else f"the keys are {', '.join(schema)}"
            inside = f" in {where}" if keys else ""
            raise fail((*keys, key), f"unknown key `{key}`{inside} ({advice})")
    required = strict or schema is _CRITERIA  # criteria always have both texts
    for key, kind in schema.items():
        path = (*keys, key)
        if key not in named:
            if required:
                raise fail(keys, f"{where} has no `{key}`" + ("; criteria need both `true` and `false` text"
                                                                 if schema is _CRITERIA else ""))
            continue
        if isinstance(kind, dict):
            check_section(named[key], kind, path, fail, strict, also, found, value)
        else:
            found[path] = value(kind, named[key], path, fail)


def field_values(found: Mapping[tuple[str, ...], Any], fields: Mapping[tuple[str, ...], str]) -> dict[str, Any]:
    """The checked values (`check_section`'s `found`, by path) as the pipeline's dataclass fields (`fields`: the
    field behind each path), a criteria section's two texts as one `Criteria`."""
    values: dict[str, Any] = {}
    for path, field in fields.items():
        criteria = {k[-1]: v for k, v in found.items() if k[:-1] == path}
        if criteria:
            values[field] = Criteria(**criteria)
        elif path in found:
            values[field] = found[path]
    return values
