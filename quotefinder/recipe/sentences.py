"""Split a Search API snippet into the sentences that get numbered and quoted.

The rules are the quote-finder recipe's, applied exactly, because a cutoff tuned here only means
something for the sentences the pipeline really sends:

1. Every ``...`` is a section break: it becomes a line break; lines are split on ``\\n`` only.
2. A line loses its leading Markdown markers: runs of ``#``, ``*``, ``-`` or ``>`` that are followed
   by whitespace (so ``**bold**`` at the start of a line stays).
3. A sentence ends at ``.``, ``!`` or ``?`` (plus any ``^[n]^`` footnote markers right after it) when
   whitespace and then an ASCII capital, a digit, ``"``, ``“`` or ``(`` follow. The whitespace between
   sentences is dropped.
4. Each piece is trimmed at its edges; it is kept when it is 25 to 400 characters long and has not
   been kept before. At most 255 are kept (the Decisions API's option limit). A pipeline file may set
   other limits (`split`'s keywords).

Nothing inside a sentence is changed: emphasis, odd spacing and the source's typos stay.
"""

from __future__ import annotations

import re

MIN_CHARS = 25
MAX_CHARS = 400
MAX_SENTENCES = 255

_LEADING_MARKERS = re.compile(r"^\s*(?:[#*>-]+\s+)*")  # matches at the start of every line, if only empty
# Group 1 is the sentence's own ending; the whitespace after it belongs to no sentence.
_SENTENCE_END = re.compile(r"([.!?](?:\^\[[^\]]+\]\^)*)\s+(?=[A-Z0-9\"“(])")


def split(snippet: str, min_chars: int = MIN_CHARS, max_chars: int = MAX_CHARS,
          max_sentences: int = MAX_SENTENCES) -> list[str]:
    """Return the snippet's sentences in page order, trimmed only at their edges: those `min_chars` to
    `max_chars` characters long, each once, at most `max_sentences` (the recipe's 25, 400 and 255)."""
    kept: list[str] = []
    seen: set[str] = set()
    for line in snippet.replace("...", "\n").split("\n"):
        parts = _SENTENCE_END.split(_LEADING_MARKERS.sub("", line, count=1))  # text, ending, ..., text
        parts.append("")  # the last piece has no ending
        for text, ending in zip(parts[::2], parts[1::2], strict=True):
            sentence = (text + ending).strip()
            if min_chars <= len(sentence) <= max_chars and sentence not in seen:
                seen.add(sentence)
                kept.append(sentence)
    return kept[:max_sentences]
