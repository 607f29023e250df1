"""Third-party text made inert for terminals, Markdown summaries and spreadsheets."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from conftest import HOSTILE, outside_code_spans
from quotefinder.textsafe import csv_text, markdown_code, terminal


def test_markdown_code_is_inert_but_readable() -> None:
    rendered = markdown_code(HOSTILE, in_table=True)
    assert outside_code_spans(rendered) == ""
    assert "\n" not in rendered and "\\|" in rendered
    assert rendered.startswith("``") and "`tick`" in rendered  # a longer fence keeps inner backticks literal
    url = markdown_code("https://www.example.org/a_b-c?d=1&e=2#f")
    assert url == "`https://www.example.org/a_b-c?d=1&e=2#f`"  # a URL stays readable text, no backslashes


@given(st.text())
def test_nothing_escapes_a_code_span(text: str) -> None:
    rendered = markdown_code(text, in_table=True)
    assert "\n" not in rendered and "\r" not in rendered
    if rendered:
        fence = re.match(r"`+", rendered).group(0)
        inner = rendered[len(fence):-len(fence)]
        assert rendered.endswith(fence) and fence not in inner
        assert "|" not in inner.replace("\\|", "")


def test_csv_cells_cannot_start_a_formula() -> None:
    for text in ("=HYPERLINK(\"http://evil\")", "+1", "-2+3", "@SUM(A1)", "\tx", "\rx"):
        assert csv_text(text) == "'" + text
    assert csv_text("Hubble was launched in 1990.") == "Hubble was launched in 1990." and csv_text(None) == ""


def test_terminal_text_has_no_control_sequences() -> None:
    assert terminal("Title\x1b[2J\x1b]0;pwned\x07 \u202eevil") == "Title?[2J?]0;pwned? ?evil"
