"""The API key, kept out of everything the project saves or prints.

A server or a proxy may send the key back: in the `x-request-id` header, in an error page, in a 200 body,
in a value the contract check then quotes in its message. It may come back as sent, JSON- or
repr-escaped, percent-encoded, hex-encoded (either case), or base64-encoded (standard or URL-safe, of the whole
`Bearer KEY` header or of the key alone, at any offset inside a longer encoded text, and line-wrapped as MIME wraps
it, with a line break, CRLF or an escaped `\n` anywhere in it). `secret_forms` lists every such form (each also as it
reads inside a JSON string), and a `Secret` built from the key

- `redact(text)` blanks each of them (case-insensitively, as percent-encodings vary in case) in text that
  is about to be saved or printed: a message, a request id, run.json's errors, the terminal;
- `echoed_in(data)` says whether a response body holds one, so that such a body is never saved at all.

Both also find the key spelt one escaped character at a time (`\\u0070`, `%70`, `&#112;`: `unescaped`), as a
body that is not JSON, and so is not decoded as JSON, can spell it.

A key shorter than `MIN_SEARCHED` characters is a placeholder (the stand-in takes `any`), a word that
ordinary page text contains: only its exact occurrences are blanked, and no body is refused for it.
"""

from __future__ import annotations

import base64
import json
import re
import urllib.parse
from typing import TypeVar

MASK = "[key]"
MIN_SEARCHED = 8  # real keys are far longer (pplx- and 48 characters)
MIN_BASE64 = 12  # a base64 fragment shorter than this could be anything
KEY_VARIABLE = "PERPLEXITY_API_KEY"

_CHARACTERS = {" ": "a space", "\t": "a tab", "\n": "a line break", "\r": "a line break (carriage return)"}

E = TypeVar("E", bound=BaseException)


def encoded_forms(key: str) -> tuple[str, ...]:
    """The forms of `key` that are an encoding a transport may wrap into lines (base64 as MIME writes it, or hex):
    hex and base64 of `Bearer KEY` and of the key, the base64 at each offset of a longer encoded text."""
    forms: set[str] = set()
    for text in (f"Bearer {key}", key):
        raw = text.encode()
        forms.add(raw.hex())
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            forms.add(encode(raw).decode().rstrip("="))
            # inside a longer base64 text (`{"Authorization": "Bearer KEY"}` encoded) the key's bytes can start at
            # any of three offsets: encode each, keeping only the 4-character groups made of its bytes alone
            for shift in (0, 1, 2):
                whole = (shift + len(raw)) // 3
                core = encode(b"\0" * shift + raw).decode()[4 if shift else 0:4 * whole]
                if len(core) >= MIN_BASE64:
                    forms.add(core)
    return tuple(sorted(forms))


def secret_forms(key: str) -> tuple[str, ...]:
    """Every form in which a server could echo `key`, longest first (base64 without its `=` padding, of which
    an echo may keep any part). The encoded forms (`encoded_forms`) are also found wrapped into lines (`Secret`)."""
    if not key:
        return ()
    if key_problem(key):  # refused before anything is sent; its encodings may not even exist (a lone surrogate)
        return (key,)
    forms = {key, repr(key)[1:-1], urllib.parse.quote(key), urllib.parse.quote(key, safe=""),
             urllib.parse.quote_plus(key), *encoded_forms(key)}
    once = {json.dumps(form)[1:-1] for form in forms}  # each as it reads inside a JSON string, and inside that
    forms |= once | {json.dumps(form)[1:-1] for form in once}
    return tuple(sorted(forms, key=lambda form: (-len(form), form)))


def key_problem(key: str, variable: str = KEY_VARIABLE) -> str:
    """Why `key` cannot be an API key ('' when it can): every character must be printable ASCII, no space. The
    message names the variable, the kind of character and where it is, never the key."""
    for n, char in enumerate(key, start=1):
        if "!" <= char <= "~":
            continue
        what = _CHARACTERS.get(char) or ("a control character" if char.isascii() else "a character that is not ASCII")
        return (f"{variable} holds {what} (character {n} of {len(key)}); an API key is printable ASCII without "
                "spaces. Check how it was set (a line break read from a file, a space or a quote mark pasted with "
                "it) and set it again; nothing was sent.")
    return ""


# One character written as an escape: JSON's or Python's (`\\u0070`, `\\x70`, `\\"`, `\\\\`), a percent-encoding
# (`%70`) or an HTML character reference (`&#112;`, `&#x70;`); only printable ASCII is decoded, all a key can hold
_ESCAPED = re.compile(r"\\u00([2-7][0-9a-fA-F])|\\x([2-7][0-9a-fA-F])|%([2-7][0-9a-fA-F])|&#[xX]0*([2-7][0-9a-fA-F]);"
                      r"|&#0*(3[3-9]|[4-9][0-9]|1[01][0-9]|12[0-6]);|\\([\\\"'/])")
MAX_UNESCAPES = 4  # rounds of decoding: an escape of an escape of an escape (`%255Cu0070`) is still found


def _character(found: re.Match[str]) -> str:
    if found.group(6) is not None:
        return found.group(6)
    hexadecimal = next((group for group in found.groups()[:4] if group is not None), None)
    code = int(hexadecimal, 16) if hexadecimal is not None else int(found.group(5))
    return chr(code) if 0x21 <= code <= 0x7E else found.group()


def unescaped(text: str) -> str:
    """`text` with every character a key can hold that is written as an escape decoded (see `_ESCAPED`), again
    until nothing changes (at most `MAX_UNESCAPES` rounds): a body that is not JSON, and so not decoded as JSON,
    can still spell the key one escaped character at a time. Other escapes are kept as written."""
    for _ in range(MAX_UNESCAPES):
        decoded = _ESCAPED.sub(_character, text)
        if decoded == text:
            break
        text = decoded
    return text


# What an encoder may put between two characters of an encoded form: a line break (MIME wraps base64 at 76
# characters), raw or as a JSON string writes it (`\n`, `\r\n`, `\t`), a space or a tab (base64 in groups), a colon or a
# dash (hex written byte by byte: `70:70:6c`)
_BREAK = r"(?:\r\n|\n|\r|\\r\\n|\\n|\\r|\\t|[ \t:-])?"
# ... and between two characters of the key itself: a quoted-printable soft line break (`=` at the end of a line)
_SOFT_BREAK = r"(?:=\r?\n|=\\r\\n|=\\n)?"
MIN_RUN = 16  # characters of the key in a row that are blanked wherever they stand (an echo cut short, or split)


def _wrappable(form: str, gap: str = _BREAK) -> str:
    """A pattern of `form` with `gap` allowed between any two of its characters."""
    return gap.join(map(re.escape, form))


def _runs(key: str) -> str:
    """A pattern of every run of at least `MIN_RUN` characters of `key` in a row (an echo of the key cut short, or of
    a part of it: it need not be a guess away), each as long as it goes on."""
    if len(key) <= MIN_RUN:
        return ""
    found = []
    for start in range(1, len(key) - MIN_RUN + 1):  # (the run from the start is the key's own form, wrappable)
        rest = "".join(f"(?:{re.escape(char)}" for char in key[start + MIN_RUN:]) + ")?" * (len(key) - start - MIN_RUN)
        found.append(re.escape(key[start : start + MIN_RUN]) + rest)
    head = "".join(f"(?:{re.escape(char)}" for char in key[MIN_RUN:-1]) + ")?" * (len(key) - MIN_RUN - 1)
    return "|".join([re.escape(key[:MIN_RUN]) + head, *found])


def _pattern(key: str) -> str:
    """The alternation of every form of `key`, longest first: the encoded ones with `_BREAK` allowed between any two
    characters, the key itself with a soft line break allowed, then any run of `MIN_RUN` of its characters."""
    searched = secret_forms(key)
    if key_problem(key):
        return "|".join(map(re.escape, searched))
    encoded = set(encoded_forms(key))
    forms = [_wrappable(form) if form in encoded else _wrappable(form, _SOFT_BREAK) if form == key else re.escape(form)
             for form in searched]
    return "|".join(filter(None, [*forms, _runs(key)]))


class Secret:
    """One API key's forms, ready to blank (`redact`) or to look for (`echoed_in`). Never shows the key."""

    def __init__(self, key: str = "") -> None:
        pattern = _pattern(key) if len(key) >= MIN_SEARCHED else ""
        self._text = re.compile(pattern, re.IGNORECASE) if pattern else None
        self._bytes = (re.compile(pattern.encode("utf-8", "surrogatepass"), re.IGNORECASE) if pattern else None)
        searched = bool(pattern)
        self._placeholder = key if key and not searched else ""

    def __repr__(self) -> str:
        return "Secret([key])"

    def _blank(self, text: str) -> str:
        if self._text is not None:
            return self._text.sub(MASK, text)
        return text.replace(self._placeholder, MASK) if self._placeholder else text

    def redact(self, text: str) -> str:
        """`text` with every form of the key replaced by `[key]`; when the key is spelt in escapes (`unescaped`),
        the text with its escapes decoded and the key blanked, otherwise as it was."""
        clean = self._blank(text)
        decoded = unescaped(clean)
        if decoded != clean and (blanked := self._blank(decoded)) != decoded:
            return blanked
        return clean

    def echoed_in(self, data: bytes) -> bool:
        """Whether `data` holds the key in any of its forms, also spelt in escapes (never for a placeholder key)."""
        if self._bytes is None or self._text is None:
            return False
        if self._bytes.search(data) is not None:
            return True
        text = data.decode("utf-8", "replace")
        decoded = unescaped(text)
        return decoded != text and self._text.search(decoded) is not None

    def redacted(self, error: E) -> E:
        """`error`, its message blanked of the key (in place), for raising or printing."""
        text = str(error)
        clean = self.redact(text)
        if clean != text:
            error.args = (clean,)
        return error


def redact(text: str, key: str) -> str:
    """`text` with every form of `key` blanked: `Secret(key).redact(text)`."""
    return Secret(key).redact(text)
