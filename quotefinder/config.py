"""A project's configuration: the top-level keys of quotefinder.toml, or `[tool.quotefinder]` in pyproject.toml, in
the current directory or the nearest one above it that has either (as ruff and pytest find theirs), or the file
`QUOTEFINDER_CONFIG` names (set empty: none), read once per command by every verb, alias and the Python API alike.
It sets what a project always types (its grid, its objective, its guarantee, its production mix, its baseline, its
gate); an option typed on the command line overrides it. Every key is checked as the option of its name would check
it, and an error names the file and the key. A file is read with bounded effort, like the question and pipeline
files: at most `MAX_BYTES`, keys of at most `MAX_KEY_PARTS` dotted parts (TOML's parser takes time quadratic in
them), no nesting deeper than Python's recursion limit, no number of more digits than Python converts; every value
a message quotes is cut (`textsafe.shown`)."""

from __future__ import annotations

import argparse
import errno
import os
import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .core import values
from .core.errors import InputError
from .core.plugin import System
from .core.registry import axis_spec
from .core.storage import read_file
from .core.textsafe import line, shown
from .sweep.grid import parse_axis

OWN_FILE, PYPROJECT, TABLE = "quotefinder.toml", "pyproject.toml", "tool.quotefinder"
# key: the option it stands for (its dest is the key itself, `--` and dashes for underscores)
MAX_BYTES = 1 << 20  # a configuration is a few lines; a pyproject.toml, a few hundred
MAX_KEY_PARTS = 32
_KEY_LINE = re.compile(r"\s*(\[\[?)?(?P<key>[^=\]\n]*)")  # a table header's key, or a key before its `=`
KEYS = ("grid", "wrong_cost", "max_wrong_rate", "delta", "answerable_share", "baseline", "at", "max_wrong",
        "min_correct")
# Each key but the grid read as its option reads it (the same types: the command, its aliases and the Python API
# take exactly the same values); `at` is a point, checked against the run's system (`point_of`).
TYPES: dict[str, Callable[[str], Any]] = {
    "wrong_cost": values.wrong_cost, "max_wrong_rate": values.open_unit("--max-wrong-rate"),
    "delta": values.open_unit("--delta"), "answerable_share": values.open_unit("--answerable-share"),
    "baseline": Path, "at": str, "max_wrong": values.count, "min_correct": values.count}


class ConfigError(InputError):
    """A configuration file that cannot be read, or a key in it that is unknown or has a bad value."""


@dataclass(frozen=True)
class Config:
    """The keys a project's configuration sets (`values`, as read) and the file they came from (`source`, as the
    summary names it: quotefinder.toml, or pyproject.toml [tool.quotefinder])."""

    source: str = ""
    values: dict[str, Any] = field(default_factory=dict)


CONFIG_ENV = "QUOTEFINDER_CONFIG"  # the configuration file to use instead of looking for one; set empty: none


def found(start: Path | None = None) -> Config:
    """The project's configuration: the file `QUOTEFINDER_CONFIG` names (none when it is set empty), else the first
    of `start` (the current directory) and the directories above it that configures quotefinder (`load`); an empty
    one when none does. `ConfigError` as `load` raises it."""
    chosen = os.environ.get(CONFIG_ENV)
    if chosen is not None:
        return _of_file(Path(chosen)) if chosen else Config()
    here = Path(os.path.abspath(start or Path.cwd()))
    for directory in (here, *here.parents):
        config = load(directory)
        if config.source:
            return config
    return Config()


def load(directory: Path) -> Config:
    """The configuration in `directory` (an empty one when it has none). `ConfigError` for a file that is not
    TOML, an unknown key, a grid that is not a table of strings, or both files configuring."""
    own, project = directory / OWN_FILE, directory / PYPROJECT
    configs = [config for path in (own, project) if os.path.lexists(path)  # anything at the name is read (and
               for config in (_of_file(path),) if config.source]  # refused unless a regular file), never skipped
    if len(configs) == 2:
        raise ConfigError(f"both {_named(own)} and {_named(project)} [{TABLE}] configure quotefinder: keep one of "
                          "them")
    return configs[0] if configs else Config()


def _named(path: Path) -> str:
    """A configuration file as messages and the summary name it: relative to the current directory."""
    return os.path.relpath(path)


def _of_file(path: Path) -> Config:
    """The configuration a file holds: its `[tool.quotefinder]` table for a pyproject.toml (none without one), else
    its top-level keys, checked (`_checked`)."""
    data = _read(Path(_named(path)))
    if path.name != PYPROJECT:
        return _checked(Config(_named(path), data))
    tool = data.get("tool", {})
    table = tool.get("quotefinder") if isinstance(tool, dict) else None  # (`tool` another type: not ours)
    if table is None:
        return Config()
    if not isinstance(table, dict):
        raise ConfigError(f"{_named(path)}: [{TABLE}] must be a table of keys")
    return _checked(Config(f"{_named(path)} [{TABLE}]", table))


def _checked(config: Config) -> Config:
    """`config`, its keys known and its grid a table of texts; `ConfigError` naming the file and the key otherwise."""
    for key, value in config.values.items():
        if key not in KEYS:
            raise ConfigError(f"{config.source}: unknown key `{line(key, 40)}`; the keys are: {', '.join(KEYS)}")
        if key == "grid" and not (isinstance(value, dict) and all(isinstance(v, str) for v in value.values())):
            raise ConfigError(f'{config.source}: `grid` must be a table of axis = "START:STOP:STEP", e.g. '
                              'grid = {has_answer = "0:1:0.05"}')
    return config


def _read(path: Path) -> dict[str, Any]:
    """The TOML document at `path`, read with bounded effort (see the module docstring); `ConfigError` naming the
    file (and line) otherwise."""
    try:
        raw = read_file(path, MAX_BYTES)
    except OSError as error:
        if error.errno == errno.EFBIG:
            raise ConfigError(f"{path} is larger than a configuration can be (more than {MAX_BYTES:,} bytes)"
                              ) from None
        raise ConfigError(f"cannot read {path} ({error.strerror or error})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path} is not UTF-8 text (byte {error.start + 1}): TOML is UTF-8") from None
    for number, written in enumerate(text.splitlines(), start=1):
        key = _KEY_LINE.match(written)
        if key is not None and key["key"].count(".") >= MAX_KEY_PARTS:
            raise ConfigError(f"{path}, line {number}: a key of more than {MAX_KEY_PARTS} dotted parts; no "
                              "configuration has one")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {line(str(error))}") from None
    except RecursionError:
        raise ConfigError(f"{path}: a value nested too deeply to read") from None
    except ValueError as error:  # a number of more digits than Python converts (`sys.get_int_max_str_digits`)
        raise ConfigError(f"{path}: a value too long to read ({line(str(error))})") from None


def read(config: Config, under_test: System) -> dict[str, Any]:
    """The values of `config`, each read as its option reads it (`TYPES`; the grid's axes, each checked against
    `under_test`'s, as written; `at` checked as a point of its axes, as written). `ConfigError` naming the file and
    the key for a bad value."""
    found: dict[str, Any] = {}
    for key, value in config.values.items():
        if key == "grid":
            found[key] = {name: _axis(config, name, text, under_test) for name, text in value.items()}
            continue
        text = str(value)
        try:
            if key == "at":
                point_of(text, under_test)
            found[key] = TYPES[key](text)
        except (argparse.ArgumentTypeError, ValueError, TypeError) as error:
            raise ConfigError(f"{config.source}: {key} = {shown(value)}: {line(str(error))}") from None
    return found


def namespace(config: Config, parser: argparse.ArgumentParser, under_test: System) -> argparse.Namespace:
    """The values of `config` (`read`) that `parser`'s verb takes, as a namespace for `parser.parse_args` (what is
    typed overrides them); the grid's axes go to `config_grid`, for the axes --grid does not name. Keys the verb has
    no option for are left to the verbs that do (one configuration serves them all)."""
    found = argparse.Namespace()
    dests = {action.dest for action in parser._actions}  # (argparse has no public look-up by dest)
    for key, value in read(config, under_test).items():
        if key == "grid" and "grid" in dests:
            found.config_grid = list(value.items())
        elif key in dests:
            setattr(found, key, value)
    return found


def point_of(text: str, under_test: System) -> tuple[float, float]:
    """'H,A' (`--at`): a point on the system's two axes, each value as the axis writes it (0.3; 5; deep), in the
    plane's numbers; `ValueError` saying how to write it."""
    found = [spec.read(value) for spec, value in zip(under_test.axes, written_point(text, under_test), strict=True)]
    return found[0], found[1]


def written_point(text: str, under_test: System) -> tuple[object, object]:
    """'H,A': each value as its axis writes it (a choice's name, a count, a number), each checked; `ValueError`
    saying how to write the point."""
    first, second = under_test.axes
    example = ",".join(spec.shown(spec.default) for spec in under_test.axes)
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != 2:
        raise ValueError(f"{shown(text)}: write {first.title},{second.title}, e.g. {example}")
    found = []
    for spec, part in zip(under_test.axes, parts, strict=True):
        try:
            value: object = part if spec.kind == "choice" else int(part) if spec.kind == "count" else float(part)
            spec.read(value)
        except ValueError as error:
            raise ValueError(f"{shown(text)}: {spec.title} {shown(part)} is not a value of that axis ({error}); "
                             f"write {first.title},{second.title}, e.g. {example}") from None
        found.append(value)
    return found[0], found[1]


def _axis(config: Config, name: str, text: str, under_test: System) -> str:
    try:
        parse_axis(text, f"grid.{name}", axis_spec(under_test, name))
    except KeyError as unknown:
        raise ConfigError(f"{config.source}: grid.{line(name, 40)}: {unknown.args[0]}") from None
    except InputError as error:
        raise ConfigError(f"{config.source}: grid.{line(name, 40)} = {shown(text)}: {error}") from None
    return text


def used(config: Config, typed: set[str], taken: argparse.Namespace) -> tuple[str, ...]:
    """For the summary's options line: the keys of `config` that were used (taken by the verb, not overridden by
    an option in `typed`, the dests typed), as `echoed`."""
    return echoed(config, [key for key in config.values if key not in typed and (hasattr(taken, key) or (
        key == "grid" and hasattr(taken, "config_grid")))])


def echoed(config: Config, keys: Iterable[str]) -> tuple[str, ...]:
    """The entries of the summary's options line for the keys of `config` used, `from FILE: key = value` each
    (each shown, and cut, on its own: a long grid never hides the gate after it)."""
    chosen = set(keys)
    return tuple(f"from {config.source}: {key} = {_shown(value)}" for key, value in config.values.items()
                 if key in chosen)


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f'{k} = "{v}"' for k, v in value.items()) + "}"
    return f'"{value}"' if isinstance(value, str) else str(value)
