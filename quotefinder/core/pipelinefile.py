"""Pipeline files: the YAML that says which system is under test and how it asks (`eval.py --pipeline FILE`).

    system: quote-finder      # optional; the default system
    name: terse-criteria      # optional, like every key: the rest is the recipe's
    model: pplx-decider-v1.2-27b
    search: {max_results: 3}

`load_pipeline_file` reads one, with every error naming the file and the line (an unknown key with a
did-you-mean), never a traceback; `default_file` writes a system's default file, every key present with a
comment, which loads back as exactly that system's default pipeline.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode

from .boundedyaml import compose, construct
from .errors import InputError
from .registry import DEFAULT_SYSTEM, is_known, known_systems
from .registry import system as system_named
from .storage import read_file

MAX_FILE_BYTES = 1024 * 1024  # a pipeline file is a few dozen lines


def unknown_system(system: str) -> str:
    """Why `system` is refused, naming the known ones."""
    return f"unknown system `{system}`; the systems are: {', '.join(known_systems())}"


def _read(path: Path) -> str:
    """The file's UTF-8 text; `InputError` naming the file (and the line of a byte that is not UTF-8)."""
    try:
        raw = read_file(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        raise InputError(f"{path}: no such pipeline file (`quotefinder pipeline show > FILE` writes "
                         "the recipe's, to edit)") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a pipeline file") from None
    except OSError as error:
        if error.errno == errno.EFBIG:
            raise InputError(f"{path}: larger than {MAX_FILE_BYTES // 1024} KiB; a pipeline file is a few dozen "
                             "lines") from None
        raise InputError(f"{path}: cannot be read ({error.strerror})") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise InputError(f"{path}, line {line}: not UTF-8 text; save the file as UTF-8") from None


def _lines(node: Node, path: Path, keys: tuple[str, ...], found: dict[tuple[str, ...], int]) -> None:
    """Record the 1-based line of every key under `node`, by its path; refuse a key written twice."""
    if not isinstance(node, MappingNode):
        return
    for key_node, value_node in node.value:
        key = key_node.value if isinstance(key_node, ScalarNode) else "?"
        here = (*keys, key)
        if here in found:
            raise InputError(f"{path}, line {key_node.start_mark.line + 1}: `{'.'.join(here)}` appears twice (first "
                             f"on line {found[here]})")
        found[here] = key_node.start_mark.line + 1
        _lines(value_node, path, here, found)


def parse_pipeline_text(text: str, path: Path) -> tuple[str, Any]:
    """A pipeline file's text as (system, pipeline); `InputError` naming `path` and the line. An empty file is
    the recipe's pipeline."""
    root = compose(text, path)
    if root is None:
        return DEFAULT_SYSTEM, system_named().default
    lines: dict[tuple[str, ...], int] = {}
    _lines(root, path, (), lines)
    data = construct(root, path)
    if not isinstance(data, Mapping):
        raise InputError(f"{path}, line {root.start_mark.line + 1}: a pipeline file is a mapping of keys such as "
                         f"{', '.join(('system', *system_named().default.as_json()))}")
    data = dict(data)
    system = data.pop("system", DEFAULT_SYSTEM)
    if not isinstance(system, str) or not is_known(system):
        line = lines.get(("system",))
        shown = system if isinstance(system, str) else repr(system)
        raise InputError(f"{path}{f', line {line}' if line else ''}: {unknown_system(shown)}")
    pipeline = system_named(system).pipeline_type.parse(data, path, lines, also=("system",))
    if "name" not in data and pipeline.digest != system_named(system).default.digest:  # a variant is never
        # called by its system's default name ("recipe"): the file names it
        stem = re.sub(r"[^A-Za-z0-9._-]+", "-", path.stem).strip("-._")[:64] or "variant"
        pipeline = dataclasses.replace(pipeline, name=stem)
    return system, pipeline


def load_pipeline_file(path: Path | str) -> tuple[str, Any]:
    """Read a pipeline file: its system (`system:`, default quote-finder) and its pipeline (every key the file
    leaves out is the system's default). `InputError` naming the file and the line for anything wrong."""
    path = Path(path)
    return parse_pipeline_text(_read(path), path)


# ---- writing a system's default file -----------------------------------------------------------------------

NAME_COMMENT = "change it: shown in every report, and names the default run directory (runs/<questions>-<name>)"


def _scalar(value: Any) -> str:
    """A YAML scalar: numbers as they are, null, text double-quoted (JSON's escapes are YAML's)."""
    if value is None:
        return "null"
    return str(value) if isinstance(value, int) else json.dumps(value, ensure_ascii=False)


def _write(data: Mapping[str, Any], keys: tuple[str, ...], out: list[str],
           comments: Mapping[tuple[str, ...], str]) -> None:
    indent = "  " * len(keys)
    for key, value in data.items():
        here = (*keys, key)
        comment = comments.get(here, "")
        shown = f'"{key}"' if key in ("true", "false") else key  # unquoted, YAML would read a boolean
        if comment:
            out.append(f"{indent}# {comment}")
        if isinstance(value, Mapping):
            out.append(f"{indent}{shown}:")
            _write(value, here, out, comments)
        else:
            out.append(f"{indent}{shown}: {_scalar(value)}")


def default_file(system: str = DEFAULT_SYSTEM) -> str:
    """The system's default pipeline file: every key present with a short comment, ready to copy and edit.
    `KeyError` for an unknown system (see `unknown_system`)."""
    plugin = system_named(system)
    pipeline = plugin.default
    whose = f" ({plugin.default_words})" if plugin.default_words else ""
    out = [f"# The {system} system's default pipeline{whose}. Every key is optional: what you leave",
           "# out keeps the value below. Record with it: quotefinder record QUESTIONS --pipeline THIS_FILE",
           f"# the system under test; the systems are: {', '.join(known_systems())}",
           f"system: {system}"]
    _write(pipeline.as_json(), (), out, {("name",): NAME_COMMENT, **plugin.comments})
    return "\n".join(out) + "\n"
