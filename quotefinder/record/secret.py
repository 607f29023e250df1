"""The API key, kept out of everything the project saves or prints.

A server or a proxy may send the key back: in the `x-request-id` header, in an error page, in a 200 body,
in a value the contract check then quotes in its message. It may come back as sent, JSON- or
repr-escaped, percent-encoded, or base64-encoded (of the whole `Bearer KEY` header or of the key alone).
`secret_forms` lists every such form (each also as it reads inside a JSON string), and a `Secret` built from the key

- `redact(text)` blanks each of them (case-insensitively, as percent-encodings vary in case) in text that
  is about to be saved or printed: a message, a request id, run.json's errors, the terminal;
- `echoed_in(data)` says whether a response body holds one, so that such a body is never saved at all.

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


def secret_forms(key: str) -> tuple[str, ...]:
    """Every form in which a server could echo `key`, longest first (base64 without its `=` padding, of which
    an echo may keep any part)."""
    if not key:
        return ()
    if key_problem(key):  # refused before anything is sent; its encodings may not even exist (a lone surrogate)
        return (key,)
    forms = {key, repr(key)[1:-1], urllib.parse.quote(key), urllib.parse.quote(key, safe=""),
             urllib.parse.quote_plus(key)}
    for text in (f"Bearer {key}", key):
        raw = text.encode()
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            forms.add(encode(raw).decode().rstrip("="))
            # inside a longer base64 text (`{"Authorization": "Bearer KEY"}` encoded) the key's bytes can start at
            # any of three offsets: encode each, keeping only the 4-character groups made of its bytes alone
            for shift in (0, 1, 2):
                whole = (shift + len(raw)) // 3
                core = encode(b"\0" * shift + raw).decode()[4 if shift else 0:4 * whole]
                if len(core) >= MIN_BASE64:
                    forms.add(core)
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


class Secret:
    """One API key's forms, ready to blank (`redact`) or to look for (`echoed_in`). Never shows the key."""

    def __init__(self, key: str = "") -> None:
        searched = secret_forms(key) if len(key) >= MIN_SEARCHED else ()
        self._text = re.compile("|".join(map(re.escape, searched)), re.IGNORECASE) if searched else None
        self._bytes = (re.compile(b"|".join(re.escape(form.encode("utf-8", "surrogatepass")) for form in searched),
                                  re.IGNORECASE) if searched else None)
        self._placeholder = key if key and not searched else ""

    def __repr__(self) -> str:
        return "Secret([key])"

    def redact(self, text: str) -> str:
        """`text` with every form of the key replaced by `[key]`."""
        if self._text is not None:
            return self._text.sub(MASK, text)
        return text.replace(self._placeholder, MASK) if self._placeholder else text

    def echoed_in(self, data: bytes) -> bool:
        """Whether `data` holds the key in any of its forms (never for a placeholder key)."""
        return self._bytes is not None and self._bytes.search(data) is not None

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
