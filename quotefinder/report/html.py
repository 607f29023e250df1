"""`index.html`: the sweep as a page a person can explore, in one self-contained file.

Heatmaps of every outcome and of the score (the certified region outlined, the default and recommended
cells marked); hovering a cell shows its counts, clicking it lists its questions with their outcomes, the
quoted sentence or the closest candidate, its compare probability and its source, and what changes one
grid step away. The data is the sweep's own: for every question and repeat, its distinct has_answer values
and the top candidate of each qualified set, from which the page applies the same two comparisons as the
sweep (`p >= cutoff`). Nothing is fetched: the script and the styles are inline, a Content-Security-Policy
allows only that script (by its hash) and no network, page text is JSON inside a non-executed script
element, shown with textContent, and a link is made only of an http(s) URL. The same sweep gives the same
bytes: no clock, no random ids, sorted keys.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from importlib import resources
from typing import Any

import numpy as np

from ..questions import OUTCOMES
from ..recipe.decision import closest
from ..sweep.analysis import Sweep
from ..sweep.grid import CODE, Curve, cell_index
from ..textsafe import visible
from .numbers import at_most, confidence, plain_number

_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


class _Strings:
    """A table of distinct strings, referred to by index (titles and sentences repeat across repeats), each
    with its invisible characters shown (`<U+202E>`), so a bidi override cannot reorder what a person reads."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        return self.index.setdefault(visible(text), len(self.index))

    def table(self) -> list[str]:
        return list(self.index)


def _grid(values: np.ndarray) -> list[list[float | int]]:
    """Values as grid.csv writes them (`plain_number`), so the page shows the very same numbers."""
    return [[plain_number(v) for v in row] for row in values]


def page_data(result: Sweep) -> dict[str, Any]:
    """Everything the page shows, as JSON-ready data."""
    strings = _Strings()
    sources: dict[tuple[int, int, int], int] = {}

    def source(title: str, url: str, date: str | None) -> int:
        key = (strings(title), strings(url), strings(date) if date else -1)
        return sources.setdefault(key, len(sources))

    questions = []
    for n, question in enumerate(result.questions):
        reps = []
        for traces in result.replayed.traces:
            curve = Curve.of(question, traces[n])
            tops: list[list[Any] | None] = []
            for top, code in zip(curve.tops, curve.codes, strict=True):
                if top is None or top.answers is None:
                    tops.append(None)
                    continue
                c = top.candidate
                tops.append([strings(c.sentence), source(c.title, c.url, c.date), top.answers, code])
            candidates = traces[n].candidates
            best = None
            if candidates:
                c = closest(candidates)
                best = [strings(c.sentence), source(c.title, c.url, c.date), c.has_answer, curve.unquoted]
            reps.append({"t": curve.thresholds.tolist(), "tops": tops, "none": curve.unquoted, "best": best})
        questions.append({"id": strings(question.id), "q": strings(question.question), "reps": reps})
    h, a = result.h_axis.values, result.a_axis.values
    d_h, d_a = cell_index(h, result.default.h), cell_index(a, result.default.a)  # None off the grid
    counts = result.counts
    grids: dict[str, Any] = {o.value: _grid(counts[..., CODE[o]]) for o in OUTCOMES}
    grids["score"] = _grid(np.round(result.scores, 9))  # as grid.csv: float noise off first
    certificate = result.guarantee.certificate
    return {
        "h": h.tolist(), "a": a.tolist(),
        "hText": [result.h_axis.text(i) for i in range(len(h))],
        "aText": [result.a_axis.text(i) for i in range(len(a))],
        "outcomes": [o.value for o in OUTCOMES], "labels": [o.label for o in OUTCOMES],
        "present": [bool(counts[..., CODE[o]].any()) for o in OUTCOMES],
        "repeats": result.repeats,
        "default": [d_h, d_a] if d_h is not None and d_a is not None else None,
        "recommended": list(result.choice.cell),
        "grids": grids,
        "certified": certificate.certified.astype(int).tolist() if certificate is not None else None,
        "sources": [list(key) for key in sources],
        "strings": strings.table(),
        "questions": questions,
    }


def _json(value: Any) -> str:
    """JSON that cannot end the script element it sits in, nor break a line in JavaScript."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False, sort_keys=True)
    return "".join(_ESCAPES.get(char, char) for char in text)


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def page(result: Sweep) -> str:
    """The whole page, deterministic for a given sweep."""
    script = _asset("page.js")
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    policy = (f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; img-src data:; "
              "base-uri 'none'; form-action 'none'")
    data = page_data(result)
    record = result.replayed.record
    name = visible(result.replayed.run_dir.name)
    g = result.guarantee
    d, r = result.default, result.recommended
    facts = [
        f"{len(result.questions)} question(s), {result.repeats} repeat(s), evidence {record.evidence_word}; "
        f"score = correct + no-answer - {result.wrong_cost:g} x wrong",
        f"Default ({d.h:g}, {d.a:g}), {'circled' if data['default'] else 'not on this grid'}; recommended "
        f"({r.h:g}, {r.a:g}), starred"
        + (" (the default: its score is within one standard error of the best cell's)" if result.choice.is_default
           else ""),
    ]
    if g.certificate is not None:
        facts.append(f"Outlined in red: the {int(g.certificate.certified.sum())} cell(s) certified to keep the "
                     f"wrong-quote rate at most {at_most(g.certificate.alpha)} with probability at least "
                     f"{confidence(g.delta)}")
    else:
        facts.append(f"At the default, a wrong-quote rate of at most {at_most(g.default_bound)} with probability "
                     f"at least {confidence(g.delta)} (see summary.md)")
    banner = ("<p class=\"banner\"><strong>Synthetic evidence.</strong> Recorded against the stand-in API from "
              "invented probabilities: it shows what the harness reports, not how the real pipeline performs.</p>"
              if record.synthetic else "")
    items = "".join(f"<li>{html.escape(fact)}</li>" for fact in facts)
    marker = " (SYNTHETIC evidence)" if record.synthetic else ""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cutoff sweep: {html.escape(name)}{marker}</title>
<style>
{_asset("page.css")}</style>
</head>
<body>
<h1>Cutoff sweep: {html.escape(name)}{marker}</h1>
{banner}
<ul class="facts">{items}</ul>
<h2>The grid</h2>
<p class="legend">Rows: HAS_ANSWER_CUTOFF, rising upwards; columns: ANSWER_CUTOFF, rising to the right. Each map runs
from dark blue (its lowest value) to yellow (its highest), the range beside its name. Hover a cell for its counts
(means over repeats); click it to list its questions, then move with the arrow keys.</p>
<div id="heatmaps"></div>
<div id="tooltip" role="tooltip" hidden></div>
<h2 id="cell-title"></h2>
<p id="cell-counts"></p>
<ul id="steps"></ul>
<div id="filters"></div>
<label>Search the ids, questions, sentences and titles shown
<input id="search" type="search" autocomplete="off"></label>
<p id="list-count"></p>
<table>
<thead><tr><th>Question</th><th>Text</th><th>Outcome</th><th>Quoted sentence, or the closest candidate</th>
<th>Compare probability</th><th>Source</th></tr></thead>
<tbody id="questions-body"></tbody>
</table>
<button id="more" type="button" hidden>Show more</button>
<script type="application/json" id="sweep-data">{_json(data)}</script>
<script>{script}</script>
</body>
</html>
"""
