"""Reading a user's YAML with bounded effort: question, verdicts and pipeline files all come through here.

A YAML file can ask for far more than its size: an alias names a value written once, and aliases of aliases
grow it a billionfold (an "alias bomb" of a few hundred bytes); an explicit tag (`!!float abc`, `!!timestamp`)
reaches constructors that raise on bad text; a number of thousands of digits costs quadratic time to read and
more to show. `compose` refuses all of that from the parser's events, before any node is built:

- an explicit tag (`!!str`, `!foo`, `!`): write the value plainly, quoted if YAML would read it as a number;
- aliases whose values add up to more than `MAX_ALIASED` nodes, or an alias inside the value it names;
- a plain number of more than `MAX_NUMBER_CHARS` characters;
- lists or mappings nested more than `MAX_DEPTH` deep (libyaml's composer would overflow the C stack).

`construct` builds Python values from the nodes (pipeline files), turning what a constructor raises on text
the tags above do not cover (`2001-13-45`, `0x_`) into an error naming the line. Every message names the file
and the line, holds nothing of the value but its length, and is an `InputError` (exit 2) of the caller's kind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent, Event, NodeEvent, ScalarEvent
from yaml.nodes import Node, ScalarNode
from yaml.resolver import Resolver

from .errors import InputError

MAX_DEPTH = 100  # lists and mappings inside one another (a question file needs 4)
MAX_ALIASED = 10_000  # nodes that aliases may repeat, in all: a file's own anchors, not a bomb
MAX_NUMBER_CHARS = 32  # a plain number's characters: every number a config holds is far shorter
MAX_PROBLEM_CHARS = 200  # of a YAML parser's own message, which may quote an anchor of any length
_NUMBERS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")


class BoundedLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The YAML loader (libyaml's when installed) whose events `compose` checks before composing."""


def _where(path: Path, event: Event | Node) -> str:
    return f"{path}, line {event.start_mark.line + 1}"


def _check(text: str, path: Path, error: type[InputError]) -> None:
    """Refuse, from the parser's events, what `compose` refuses (see the module's docstring)."""
    resolver = Resolver()
    sizes: dict[str, int] = {}  # each anchor's size in nodes, its aliases' included
    open_: list[tuple[str | None, int]] = []  # each open collection's anchor and its size so far
    aliased = 0
    for event in yaml.parse(text, Loader=BoundedLoader):
        size = 1
        if isinstance(event, NodeEvent) and not isinstance(event, AliasEvent) and event.tag is not None:
            raise error(f"{_where(path, event)}: an explicit YAML tag (`!...`); write the value without it, in quotes "
                        "if it is text that YAML would read as something else")
        if isinstance(event, ScalarEvent) and len(event.value) > MAX_NUMBER_CHARS and event.implicit[0] \
                and resolver.resolve(ScalarNode, event.value, (True, False)) in _NUMBERS:
            raise error(f"{_where(path, event)}: a number of {len(event.value):,} characters; at most "
                        f"{MAX_NUMBER_CHARS} are read (put it in quotes if it is text)")
        if isinstance(event, CollectionStartEvent):
            if len(open_) >= MAX_DEPTH:
                raise error(f"{_where(path, event)}: lists or mappings nested more than {MAX_DEPTH} deep; a question "
                            "or verdicts file needs 4")
            open_.append((event.anchor, 1))
            continue
        if isinstance(event, CollectionEndEvent):
            anchor, size = open_.pop()
            if anchor is not None:
                sizes[anchor] = size
        elif isinstance(event, AliasEvent):
            if any(anchor == event.anchor for anchor, _ in open_):
                raise error(f"{_where(path, event)}: an alias inside the value it names (a loop); write the value out")
            size = sizes.get(event.anchor or "", 0)  # an undefined alias: the composer says so
            aliased += size
            if aliased > MAX_ALIASED:
                raise error(f"{_where(path, event)}: aliases (`*name`) repeat more than {MAX_ALIASED:,} values in all; "
                            "write the values out")
        elif isinstance(event, ScalarEvent) and event.anchor is not None:
            sizes[event.anchor] = 1
        if open_:
            open_[-1] = (open_[-1][0], open_[-1][1] + size)


def _problem(error: yaml.YAMLError, path: Path) -> str:
    """The parser's error as one message naming the file and the line, its own words cut short."""
    mark = getattr(error, "problem_mark", None)
    where = f"{path}, line {mark.line + 1}" if mark is not None else str(path)
    problem = str(getattr(error, "problem", None) or error)
    if len(problem) > MAX_PROBLEM_CHARS:
        problem = problem[:MAX_PROBLEM_CHARS] + "..."
    return f"{where}: not valid YAML ({problem})"


def compose(text: str, path: Path, error: type[InputError] = InputError) -> Node | None:
    """YAML text's node tree (None when empty), refused as an `error` naming `path` and the line when it is not
    valid YAML or asks for unbounded effort (see the module's docstring; checked before composing)."""
    try:
        _check(text, path, error)
        return yaml.compose(text, Loader=BoundedLoader)
    except yaml.YAMLError as problem:
        raise error(_problem(problem, path)) from None


class _Constructor(SafeConstructor):
    """YAML's safe constructor, its errors on a node's text (an impossible date) named by the node's line."""

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as problem:
            what = str(problem)[:MAX_PROBLEM_CHARS]
            raise yaml.constructor.ConstructorError(None, None, f"cannot read the value: {what}",
                                                    node.start_mark) from None


def construct(node: Node, path: Path, error: type[InputError] = InputError) -> Any:
    """Python values from `compose`'s node tree; an `error` naming `path` and the line for a value YAML cannot
    read."""
    try:
        return _Constructor().construct_document(node)
    except yaml.YAMLError as problem:
        raise error(_problem(problem, path)) from None
