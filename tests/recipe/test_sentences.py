"""The splitter against hand-made vectors and against a slow character-by-character reference."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from quotefinder.recipe.sentences import MAX_CHARS, MIN_CHARS, split

SENTENCE_STARTS = set(string.ascii_uppercase + string.digits + '"“(')


def reference_split(snippet: str) -> list[str]:
    """The recipe's rules written out one character at a time: slow, obvious, independent of regexes."""
    kept: list[str] = []
    for line in snippet.replace("...", "\n").split("\n"):
        i = 0
        while i < len(line) and line[i].isspace():
            i += 1
        while True:  # runs of Markdown markers, each followed by whitespace
            j = i
            while j < len(line) and line[j] in "#*>-":
                j += 1
            if j == i or j == len(line) or not line[j].isspace():
                break
            while j < len(line) and line[j].isspace():
                j += 1
            i = j
        line = line[i:]
        pieces, start, pos = [], 0, 0
        while pos < len(line):
            if line[pos] in ".!?":
                end = pos + 1
                while line.startswith("^[", end):  # footnote markers ^[...]^ stay with the sentence
                    close = line.find("]", end + 2)
                    if close <= end + 2 or not line.startswith("]^", close):
                        break
                    end = close + 2
                after = end
                while after < len(line) and line[after].isspace():
                    after += 1
                if after > end and after < len(line) and line[after] in SENTENCE_STARTS:
                    pieces.append(line[start:end])
                    start = pos = after
                    continue
            pos += 1
        pieces.append(line[start:])
        for piece in pieces:
            piece = piece.strip()
            if MIN_CHARS <= len(piece) <= MAX_CHARS and piece not in kept:
                kept.append(piece)
    return kept[:255]


def test_section_breaks_and_markdown_markers_are_removed_but_emphasis_stays() -> None:
    snippet = (
        "### Geography\nThe lake sits 1,642 metres deep at its lowest point.\n...\n"
        "- **Age:** it formed roughly 25 million years ago. It is the oldest lake known."
    )
    assert split(snippet) == [
        "The lake sits 1,642 metres deep at its lowest point.",
        "**Age:** it formed roughly 25 million years ago.",
        "It is the oldest lake known.",
    ]


def test_footnote_markers_stay_with_their_sentence() -> None:
    snippet = "The bridge opened to traffic in 1937.^[4]^^[b]^ It was painted orange from the start.^[5]^"
    assert split(snippet) == [
        "The bridge opened to traffic in 1937.^[4]^^[b]^",
        "It was painted orange from the start.^[5]^",
    ]


def test_boundary_needs_whitespace_then_capital_digit_quote_or_parenthesis() -> None:
    snippet = (
        "It was measured again, e.g. by the survey team in spring. "
        "The survey used sonar pulses from a ship. 12 readings were averaged for the figure. "
        "\"Remarkable,\" said the lead scientist on the day. (Results came out a year later in print.) "
        "Élan was the word used by the press in Paris."
    )
    assert split(snippet) == [
        "It was measured again, e.g. by the survey team in spring.",
        "The survey used sonar pulses from a ship.",
        "12 readings were averaged for the figure.",
        "\"Remarkable,\" said the lead scientist on the day.",
        "(Results came out a year later in print.) Élan was the word used by the press in Paris.",
    ]


def test_abbreviation_before_a_number_splits_as_the_recipe_warns() -> None:
    assert split("The probe left the heliosphere on Aug. 25, 2012, far beyond Pluto.") == [
        "The probe left the heliosphere on Aug.",
        "25, 2012, far beyond Pluto.",
    ]


def test_length_limits_are_inclusive_and_repeats_dropped() -> None:
    short, low, high, long = "x" * 23 + ".", "y" * 24 + ".", "Z" + "z" * 399, "W" + "w" * 400
    assert (len(short), len(low), len(high), len(long)) == (24, 25, 400, 401)
    assert split(f"{short}\n{low}\n{high}\n{long}\n{low}") == [low, high]


def test_only_edges_are_trimmed_and_inner_spacing_kept() -> None:
    assert split("  \t> *  Odd   spacing  stays   inside this sentence .  \r") == [
        "Odd   spacing  stays   inside this sentence ."
    ]


def test_markers_need_whitespace_after_them() -> None:
    assert split("#hashtag lines keep their hash sign intact\n->arrow lines keep their arrows too") == [
        "#hashtag lines keep their hash sign intact",
        "->arrow lines keep their arrows too",
    ]


def test_at_most_255_sentences() -> None:
    snippet = " ".join(f"Sentence number {n} is comfortably long enough." for n in range(300))
    found = split(snippet)
    assert len(found) == 255 and found[-1] == "Sentence number 254 is comfortably long enough."


def test_four_dots_and_unicode_ellipsis() -> None:
    # "...." is a break, then a line ". Second ..." whose lone "." ends a too-short first piece;
    # the single-character ellipsis is not a break.
    assert split("First part of the thought goes here.... Second part follows after it…  Third piece here") == [
        "First part of the thought goes here",
        "Second part follows after it…  Third piece here",
    ]


TOKENS = st.sampled_from([
    *"aZ9 .!?^[]#*>-\n\t\u00a0\"“(…éÉ", "...", "^[1]^", "^[a b]^", "# ", "- ", "> ", "* ", "**bold** ",
    "Aug. ", "e.g. ", "A sentence long enough to be kept", " and it goes on a while", "12 monkeys were seen",
])


@settings(max_examples=600, deadline=None)
@given(st.lists(TOKENS, max_size=60).map("".join))
def test_split_matches_the_reference(snippet: str) -> None:
    assert split(snippet) == reference_split(snippet)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=600))
def test_split_never_crashes_and_keeps_text_verbatim(snippet: str) -> None:
    for sentence in split(snippet):
        assert MIN_CHARS <= len(sentence) <= MAX_CHARS
        assert sentence in snippet.replace("...", "\n")
