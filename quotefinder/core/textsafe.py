"""Third-party text (snippets, titles, URLs) made inert for each place it is shown.

Pages are written by strangers. Shown raw, a title could move the terminal cursor, a quote could
inject a link, an image or HTML into a CI job summary, or run a formula in a spreadsheet. Each
function here keeps the text readable while removing that power.
"""

from __future__ import annotations

import re
import reprlib
import unicodedata
from collections.abc import Iterable

_FORMULA_START = ("=", "+", "-", "@")
SHOWN_AT_MOST = 80  # characters of a text a message quotes (`shown`): it lands in run.json and on screen
_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = SHOWN_AT_MOST
_REPR.maxlevel = 3
_BACKTICKS = re.compile(r"`+")
_HIDDEN = frozenset(("Cc", "Cf", "Zl", "Zp"))  # controls, format characters (zero-width, bidi), line separators


def hidden(char: str) -> bool:
    """Whether `char` shows nothing or changes how the text around it shows: a control character, a
    zero-width or bidirectional format character, a line or paragraph separator."""
    return unicodedata.category(char) in _HIDDEN


def _mark(char: str) -> str:
    return f"<U+{ord(char):04X}>"


def _shown(text: str, keep: str) -> str:
    """`text` with every hidden character but those in `keep` written as `<U+XXXX>`."""
    if text.isprintable():  # the common case, in C: nothing hidden (a hidden character is never printable)
        return text
    return "".join(_mark(char) if hidden(char) and char not in keep else char for char in text)


def visible(text: str) -> str:
    """Text whose invisible characters show as `<U+202E>`; tab, newline and carriage return are kept (for
    places that lay whitespace out themselves, such as an HTML table cell)."""
    return _shown(text, "\t\n\r")


def terminal(text: str) -> str:
    """Text for one terminal line: every control (escape sequences, carriage returns), zero-width and
    bidirectional character shows as `<U+XXXX>`, so it can neither move the cursor nor reorder the line."""
    return _shown(text, "")


def one_line(text: str) -> str:
    """Whitespace runs (newlines included) collapsed to single spaces; other invisible characters shown as
    `<U+XXXX>`."""
    return terminal(" ".join(text.split()))


def line(text: str, at_most: int = 4 * SHOWN_AT_MOST) -> str:
    """A message's words for one terminal line (`one_line`), cut after `at_most` characters with how long it was:
    an error that quotes a value read from a file or sent by a server stays a line."""
    text = one_line(text)
    return text if len(text) <= at_most else f"{text[:at_most]}... ({len(text)} characters)"


def said(thing: object, at_most: int = 4 * SHOWN_AT_MOST) -> str:
    """What an error (or any object) says, as `line`: whatever its `__str__` does (someone else's exception may raise
    there, SystemExit included), never an exception."""
    try:
        text = thing if isinstance(thing, str) else str(thing)
    except BaseException:
        text = f"<{type(thing).__name__} that cannot say what it is>"
    return line(text, at_most)


def markdown_code(text: str, *, in_table: bool = False, at_most: int | None = None) -> str:
    """Text as a Markdown code span: shown literally, so it cannot link, embed, emphasise or inject HTML.

    A code span's content is not parsed, and GitHub does not autolink inside one, so a URL stays
    readable text. In a table cell a `|` is escaped, which GitHub requires even inside code spans.
    With `at_most`, text longer than that many characters (as shown) is cut and ends in "…".
    """
    text = one_line(text)
    if at_most is not None and len(text) > at_most:
        text = text[:at_most - 1].rstrip() + "…"
    if not text:
        return ""
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(text)), default=0) + 1)
    if in_table:
        text = text.replace("|", "\\|")
    padded = f" {text} " if text[0] in "` " or text[-1] in "` " else text
    return f"{fence}{padded}{fence}"


_MARKDOWN_ACTIVE = re.compile(r"[\\`*_\[\]!<>&~|:$]|(?<![^\W_])(?i:www)\.")  # what can start Markdown or HTML


def markdown_text(text: str) -> str:
    """Text for a line of Markdown prose (where a code span would not read as a sentence): one line, invisible
    characters shown as `<U+XXXX>`, and every character that could start a link, an image, emphasis, a code
    span, HTML, an entity, strikethrough, math or a table cell escaped with a backslash, and so are the `:`
    of `http://` and the `.` of `www.`, so GitHub links no URL either. GitHub still links a bare e-mail
    address (as `mailto:`), as it does in any text."""
    return _MARKDOWN_ACTIVE.sub(lambda found: found.group()[:-1] + "\\." if len(found.group()) == 4
                                else "\\" + found.group(), one_line(text))


def csv_text(text: str | None) -> str:
    """A text cell a spreadsheet will not evaluate: a quote mark goes before text that starts with a tab or
    a carriage return, or whose first visible character is =, +, - or @ (looking past the whitespace and
    invisible characters a spreadsheet or a split line would skip)."""
    if text is None:
        return ""
    if text[:1].isalnum():  # the common case: a letter or a digit is neither space, nor hidden, nor a formula's start
        return text
    first = next((char for char in text if not (char.isspace() or hidden(char))), "")
    return f"'{text}" if text.startswith(("\t", "\r")) or (first and first in _FORMULA_START) else text


def csv_texts(texts: Iterable[str | None]) -> list[str]:
    """`csv_text` of each text, the common cases (a letter or a digit first; nothing: None or empty) without a
    call."""
    return [text if text and text[0].isalnum() else csv_text(text) if text else "" for text in texts]


def is_unicode(text: str) -> bool:
    """Whether `text` is valid Unicode (no lone surrogate, which JSON escapes can smuggle in)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown(value: object) -> str:
    """`value`'s repr for a message, cut before it is made: a text longer than `SHOWN_AT_MOST` characters as the
    repr of its first `SHOWN_AT_MOST` and how long it is (`'abc...'... (12345 characters)`); a list or mapping
    as a few of its items, three levels deep, each text in it cut too (a value read from a file or sent by a
    server may hold a megabyte of text, or aliases that repeat a list a billion times over). The one way a
    message quotes a value."""
    if isinstance(value, str):
        return repr(value) if len(value) <= SHOWN_AT_MOST else (
            f"{value[:SHOWN_AT_MOST]!r}... ({len(value)} characters)")
    return _REPR.repr(value)
