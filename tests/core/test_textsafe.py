"""Third-party text made inert for terminals, Markdown summaries and spreadsheets."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import HOSTILE, github_html, outside_code_spans
from quotefinder.core.textsafe import csv_text, csv_texts, markdown_code, markdown_text, one_line, terminal


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
    for text in ("=HYPERLINK(\"http://evil\")", "+1", "-2+3", "@SUM(A1)", "\tx", "\rx", "  =1+1", "\n=1+1",
                 "\u200b=1+1", "\x00\u202e @A1", "\u00a0-1"):
        assert csv_text(text) == "'" + text
    for text in ("Hubble was launched in 1990.", "'\r=1+1", " x = 1", ""):
        assert csv_text(text) == text
    assert csv_text(None) == ""


def test_terminal_text_shows_control_and_invisible_characters() -> None:
    shown = terminal("Title\x1b[2J\x1b]0;pwned\x07 \u202eevil\u200b\r")
    assert shown == "Title<U+001B>[2J<U+001B>]0;pwned<U+0007> <U+202E>evil<U+200B><U+000D>"
    assert terminal("Plain café, 206 bones.") == "Plain café, 206 bones."


def test_markdown_shows_invisible_characters_and_cuts_long_text() -> None:
    assert markdown_code("a\u202eb\u2066c\u200dd\n e") == "`a<U+202E>b<U+2066>c<U+200D>d e`"
    cut = markdown_code("x" * 500, at_most=300)
    assert cut == "`" + "x" * 299 + "…`"
    assert markdown_code("x" * 300, at_most=300) == "`" + "x" * 300 + "`"


def test_markdown_text_reads_as_written_and_links_nothing() -> None:
    shown = markdown_text(f"3 question(s) ({HOSTILE}, www.evil.example, http://evil.example, $x$)")
    rendered = github_html(f"> Caution: {shown}.")
    assert not re.search(r"<(?!/?(blockquote|p)>)", rendered), rendered
    assert "http://evil.example" in rendered and "&lt;img src=x onerror=alert(1)&gt;" in rendered
    assert markdown_text("a www.b.org") == "a www\\.b.org" and markdown_text("swww.b") == "swww.b"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_markdown_text_renders_as_its_own_text_and_nothing_else(text: str) -> None:
    rendered = github_html(f"> Caution: {markdown_text(text)}").strip()
    assert rendered.startswith("<blockquote>\n<p>") and rendered.endswith("</p>\n</blockquote>")
    inner = rendered[len("<blockquote>\n<p>"):-len("</p>\n</blockquote>")]
    tags = re.findall(r"<[^>]*>", inner)
    assert all(re.fullmatch(r'<a href="mailto:[^"]*">|</a>', tag) for tag in tags), tags  # an e-mail at most
    assert html.unescape(re.sub(r"<[^>]*>", "", inner)) == f"Caution: {one_line(text)}".strip()


@pytest.mark.fuzz
def test_no_letter_or_digit_is_hidden_so_csv_text_may_pass_text_starting_with_one() -> None:
    """`csv_text` returns text whose first character is a letter or a digit (of any script) unchanged, without
    looking further: such a character is never whitespace, never hidden and never a formula's start. Every code
    point is checked."""
    from quotefinder.core.textsafe import hidden

    alnum = [c for c in map(chr, range(0x110000)) if c.isalnum()]
    assert len(alnum) > 100_000
    assert not [c for c in alnum if c.isspace() or hidden(c) or c in "=+-@"]
    assert csv_text("=SUM(A1)") == "'=SUM(A1)" and csv_text("\u200b=1") == "'\u200b=1" and csv_text("a=1") == "a=1"
    texts = [None, "", *(c + tail for c in map(chr, range(0x110000)) for tail in ("", "=1"))]
    assert csv_texts(texts) == [csv_text(text) for text in texts]  # the column's shortcut: every code point first


def test_a_message_quotes_a_value_cut_before_it_is_made() -> None:
    """`shown` is the one cut for a value quoted in a message: a short text whole, a long one as its first
    SHOWN_AT_MOST characters and its length, a long list as a few items with each text in it cut too."""
    from quotefinder.core.textsafe import SHOWN_AT_MOST, shown

    assert shown("a\x1bb") == repr("a\x1bb") and shown(3.5) == "3.5"
    for length in (SHOWN_AT_MOST, SHOWN_AT_MOST + 1, 100_000):
        text = "é" * length
        assert shown(text) == (repr(text) if length <= SHOWN_AT_MOST
                               else f"{text[:SHOWN_AT_MOST]!r}... ({length} characters)")
    nested = ["x" * 10_000] * 1_000
    assert len(shown(nested)) < 10 * SHOWN_AT_MOST and shown(nested).startswith("['xxx")
