"""Hostile inputs for the recording's tests: an API key that every escaping changes, with the forms a server
could echo it in; and hypothesis strategies that damage a valid JSON file the way disks, editors and
attackers do: a value of the wrong type, a field deleted, nesting deeper than any parser's stack, numbers
too large for a float, lone surrogates and control characters, then the bytes truncated, flipped or padded.

`FUZZ_EXAMPLES` is the number of examples each fuzz test runs: a modest 200 in CI, more with
`QUOTEFINDER_FUZZ_EXAMPLES=20000 python -m pytest tests/record -k fuzz`.
"""

from __future__ import annotations

import base64
import copy
import json
import os
import urllib.parse
from typing import Any

from hypothesis import strategies as st

FUZZ_EXAMPLES = int(os.environ.get("QUOTEFINDER_FUZZ_EXAMPLES", "200"))

# Every character a header may carry that an escaping changes: JSON and repr escape " \\ ', percent-encoding
# / + & = % ', and base64 sees them all.
ODD_KEY = "pplx-Od\"d\\K/ey+&=%~'9xQ"


def key_forms(key: str) -> list[str]:
    """Every form a server could echo the key in, computed here apart from the product's own list."""
    forms = [key, json.dumps(key)[1:-1], repr(key)[1:-1], urllib.parse.quote(key), urllib.parse.quote(key, safe=""),
             urllib.parse.quote_plus(key)]
    for text in (f"Bearer {key}", key):
        forms += [base64.b64encode(text.encode()).decode(), base64.urlsafe_b64encode(text.encode()).decode(),
                  text.encode().hex()]  # (either case: the hex test)
    return sorted({form.rstrip("=") for form in forms})


# JSON text no Python value encodes to, substituted for a sentinel after `json.dumps`.
ODDITIES = (
    "[" * 300 + "]" * 300,  # deeper than orjson writes (255)
    "[" * 1100 + "]" * 1100,  # deeper than the json module reads at the default recursion limit
    "[" * 200_000,  # deeper than anything, and unclosed
    '{"a": ' * 3000 + "1" + "}" * 3000,
    "1" + "0" * 5000,  # an integer longer than Python converts from text by default (4300 digits)
    "1e400", "-1e400", "NaN", "Infinity", "-0", "1.0", "9" * 30,
    '"\\ud800"',  # a lone surrogate, which a JSON escape can smuggle into text
    '"\\u0000\\u001b[2J\\u202e"',
    '"' + "x" * 100_000 + '"',
    "true", "null", "{}", "[]", '""',
)
_SENTINEL = "\x00oddity:"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def _paths(value: Any, here: tuple = ()) -> list[tuple]:
    """Every place in `value` a mutation can hit: the root, each member and each item."""
    found = [here]
    if isinstance(value, dict):
        for name, member in value.items():
            found += _paths(member, (*here, name))
    elif isinstance(value, list):
        for n, item in enumerate(value):
            found += _paths(item, (*here, n))
    return found


def _replace(document: Any, path: tuple, new: Any, delete: bool = False) -> Any:
    if not path:
        return new
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return document


@st.composite
def damaged_structure(draw: st.DrawFn, document: Any) -> str:
    """`document` with one to three of its values replaced (by any JSON, or by an oddity) or deleted, as text."""
    document = copy.deepcopy(document)
    oddities = []
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(document)))
        how = draw(st.sampled_from(["any", "oddity", "delete"]))
        if how == "delete" and path:
            document = _replace(document, path, None, delete=True)
        elif how == "oddity":
            oddities.append(draw(st.sampled_from(ODDITIES)))
            document = _replace(document, path, f"{_SENTINEL}{len(oddities) - 1}")
        else:
            document = _replace(document, path, draw(json_values))
    text = json.dumps(document, indent=2, ensure_ascii=False)
    for n, oddity in enumerate(oddities):
        text = text.replace(json.dumps(f"{_SENTINEL}{n}"), oddity)
    return text


@st.composite
def damaged_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """`data` as is, truncated, with a byte flipped, or with bytes inserted."""
    how = draw(st.sampled_from(["none", "truncate", "flip", "insert"]))
    if how == "none" or not data:
        return data
    position = draw(st.integers(0, len(data) - 1))
    if how == "truncate":
        return data[:position]
    if how == "flip":
        return data[:position] + bytes([data[position] ^ draw(st.integers(1, 255))]) + data[position + 1:]
    return data[:position] + draw(st.binary(min_size=1, max_size=8)) + data[position:]
