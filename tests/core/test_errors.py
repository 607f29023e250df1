"""The documented hierarchy of errors is the real one: the tree in errors.py's docstring names every class
under the parent it has, and the errors that carry more than a message keep it."""

from __future__ import annotations

import inspect
import re

from quotefinder.core import errors
from quotefinder.core.errors import ApiError, CorruptEntry, InputError, QuoteFinderError, RunDirError, TransientError


def documented_tree() -> dict[str, str]:
    """{class: parent} as drawn in the module docstring (indentation is depth)."""
    parents: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    for line in (errors.__doc__ or "").splitlines():
        found = re.match(r"^(\s*(?:[│ ]\s*)*(?:[├└]── )?)(\w+)\s{2,}", line)
        if not found or not found.group(2)[0].isupper():
            continue
        depth = len(found.group(1))
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if stack:
            parents[found.group(2)] = stack[-1][1]
        stack.append((depth, found.group(2)))
    return parents


def test_the_docstrings_tree_is_the_class_hierarchy() -> None:
    classes = {name: cls for name, cls in inspect.getmembers(errors, inspect.isclass)
               if issubclass(cls, Exception) and cls.__module__ == errors.__name__}
    tree = documented_tree()
    assert set(tree) | {"QuoteFinderError"} == set(classes), "errors.py's docstring and its classes differ"
    for name, parent in tree.items():
        assert classes[name].__bases__ == (classes[parent],), f"{name} is drawn under {parent}"


def test_the_errors_that_carry_more_keep_it() -> None:
    corrupt = CorruptEntry("responses/ab.json", "torn")
    assert str(corrupt) == "responses/ab.json: torn" and (corrupt.path, corrupt.reason) == ("responses/ab.json", "torn")
    transient = TransientError("rate limited", status=429, retry_after=1.5)
    assert (transient.status, transient.retry_after) == (429, 1.5) and isinstance(transient, ApiError)
    assert ApiError("refused").status is None
    assert isinstance(RunDirError("x"), InputError) and isinstance(RunDirError("x"), QuoteFinderError)
