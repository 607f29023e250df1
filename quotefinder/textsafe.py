"""Third-party text (snippets, titles, URLs) made inert for each place it is shown.

Pages are written by strangers. Shown raw, a title could move the terminal cursor, a quote could
inject a link, an image or HTML into a CI job summary, or run a formula in a spreadsheet. Each
function here keeps the text readable while removing that power.
"""

from __future__ import annotations

import re
import unicodedata

_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_BACKTICKS = re.compile(r"`+")


def _visible(char: str) -> bool:
    return unicodedata.category(char) != "Cc" and char not in _BIDI


def terminal(text: str) -> str:
    """Text for a terminal: control characters (escape sequences included) and bidi overrides become '?'."""
    return "".join(char if _visible(char) else "?" for char in text)


def one_line(text: str) -> str:
    """Whitespace runs (newlines included) collapsed to single spaces; invisible controls dropped."""
    return " ".join("".join(char if _visible(char) else " " for char in text).split())


def markdown_code(text: str, *, in_table: bool = False) -> str:
    """Text as a Markdown code span: shown literally, so it cannot link, embed, emphasise or inject HTML.

    A code span's content is not parsed, and GitHub does not autolink inside one, so a URL stays
    readable text. In a table cell a `|` is escaped, which GitHub requires even inside code spans.
    """
    text = one_line(text)
    if not text:
        return ""
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(text)), default=0) + 1)
    if in_table:
        text = text.replace("|", "\\|")
    padded = f" {text} " if text[0] in "` " or text[-1] in "` " else text
    return f"{fence}{padded}{fence}"


def csv_text(text: str | None) -> str:
    """A text cell a spreadsheet will not evaluate: a leading =, +, -, @, tab or CR gets a quote mark."""
    if text is None:
        return ""
    return f"'{text}" if text.startswith(_FORMULA_START) else text


def is_unicode(text: str) -> bool:
    """Whether `text` is valid Unicode (no lone surrogate, which JSON escapes can smuggle in)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
