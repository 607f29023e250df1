"""`index.html`: the sweep as a page a person can explore, in one self-contained file.

The decision first, in the words the terminal and summary.md use (`wording.decision_lines`); then heatmaps
of every outcome and of the score, each with its colour bar (one scale where more is better, another where
more is worse), the default, recommended and best certified cells and the certified region marked by shape
(a legend says which); the risk-coverage view (the wrong-answer rate, observed and bounded, against the
share of questions answered, along ANSWER_CUTOFF in the recommended row); hovering a cell shows its
counts, clicking it lists its questions with their outcomes, the
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
import math
from collections.abc import Sequence
from importlib import resources
from typing import Any

import numpy as np

from ..core.plugin import Piece
from ..core.textsafe import visible
from ..questions import OUTCOMES
from ..sweep.analysis import Sweep
from ..sweep.grid import CODE, cell_index
from . import figures, wording
from .numbers import at_most, confidence, plain_number, point_words

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


def _risk(result: Sweep) -> dict[str, Any]:
    """The risk-coverage view's numbers (`figures.risk_coverage_frame`, as risk-coverage.png draws them): six
    decimals, the bound rounded up so that the page never shows it lower than it is."""
    frame = figures.risk_coverage_frame(result)
    certificate = result.guarantee.certificate
    return {
        "row": result.decision.marked[0],
        "coverage": [round(float(v), 6) for v in frame["coverage"]],
        "observed": [round(float(v), 6) for v in frame["observed"]],
        "bound": [math.ceil(round(float(v) * 1e6, 3)) / 1e6 for v in frame["bound"]],
        "alpha": certificate.alpha if certificate is not None else None,
        "boundWords": figures.bound_words(result),
    }


def page_data(result: Sweep) -> dict[str, Any]:
    """Everything the page shows, as JSON-ready data."""
    strings = _Strings()
    sources: dict[tuple[int, int, int], int] = {}

    def source(title: str, url: str, date: str | None) -> int:
        key = (strings(title), strings(url), strings(date) if date else -1)
        return sources.setdefault(key, len(sources))

    def piece(shown: Piece, code: int) -> list[Any]:
        quote = shown.display
        if quote is None:
            return [-1, -1, None, -1, code, 0]
        return [strings(quote.text), source(quote.title, quote.url, quote.date), quote.score,
                strings(quote.score_name), code, int(shown.quoted is not None)]

    questions = []
    for n, question in enumerate(result.questions):
        reps = []
        for run in result.judged:
            curve = run[n]
            reps.append({"e": list(curve.curve.edges), "b": [list(b) for b in curve.curve.bounds],
                         "p": [[piece(p, c) for p, c in zip(pieces, codes, strict=True)]
                               for pieces, codes in zip(curve.curve.pieces, curve.codes, strict=True)]})
        questions.append({"id": strings(question.id), "q": strings(question.question), "reps": reps})
    h, a = result.h_axis.values, result.a_axis.values
    d_h, d_a = cell_index(h, result.default.h), cell_index(a, result.default.a)  # None off the grid
    counts = result.counts
    grids: dict[str, Any] = {o.value: _grid(counts[..., CODE[o]]) for o in OUTCOMES}
    grids["score"] = _grid(np.round(result.scores, 9))  # as grid.csv: float noise off first
    certificate = result.guarantee.certificate
    return {
        "h": h.tolist(), "a": a.tolist(),
        "titles": [spec.title for spec in result.system.axes],
        "hText": [result.h_axis.text(i) for i in range(len(h))],
        "aText": [result.a_axis.text(i) for i in range(len(a))],
        "outcomes": [o.value for o in OUTCOMES], "labels": [o.label for o in OUTCOMES],
        "present": [bool(counts[..., CODE[o]].any()) for o in OUTCOMES],
        "repeats": result.repeats,
        "scoreName": result.system.quote_score,
        "default": [d_h, d_a] if d_h is not None and d_a is not None else None,
        "recommended": list(result.decision.marked),
        "bestCertified": list(result.decision.best_certified) if result.decision.best_certified is not None else None,
        "grids": grids,
        "better": {name: figures.BETTER.get(name) for name in grids},
        "stops": {scale: figures.stops(scale) for scale in figures.COLOURMAPS},  # the figures' colormaps
        "scaleWords": figures.SCALE_WORDS,
        "risk": _risk(result),
        "certified": certificate.certified.astype(int).tolist() if certificate is not None else None,
        "sources": [list(key) for key in sources],
        "strings": strings.table(),
        "questions": questions,
    }


def _decision(result: Sweep) -> str:
    """The header's decision: `wording.decision_lines`, its first line (the action and the point to ship) set
    apart; the cells it names as data attributes (grid indices) for anything that reads the page. No heading
    element: the decision comes before the page's first <h2>."""
    decision = result.decision
    lines = wording.decision_lines(result)
    ship = f"<p class=\"ship\">{html.escape(lines[0])}</p>"
    rest = "".join(f"<li>{html.escape(line)}</li>" for line in lines[1:])
    certified = "none" if decision.certified is None else str(decision.certified).lower()
    best_certified = ",".join(map(str, decision.best_certified)) if decision.best_certified is not None else ""
    return (f"<section id=\"decision\" aria-label=\"Decision\" data-cell=\"{decision.marked[0]},{decision.marked[1]}\" "
            f"data-point=\"{decision.point[0]:g},{decision.point[1]:g}\" data-certified=\"{certified}\" "
            f"data-best-certified=\"{best_certified}\" data-best=\"{decision.best[0]},{decision.best[1]}\">\n"
            f"<p class=\"kicker\">Decision</p>\n{ship}\n<ul class=\"decision\">{rest}</ul>\n</section>")


def _mark_words(result: Sweep) -> list[tuple[str, str]]:
    """The legend of the marks, (mark, words), in the order they are drawn (`page.js` draws each shape)."""
    decision, certificate = result.decision, result.guarantee.certificate
    d = result.default
    on_grid = cell_index(result.h_axis.values, d.h) is not None and cell_index(result.a_axis.values, d.a) is not None
    where = wording.cell_words
    shipped = {None: "", True: ", certified", False: ", not certified"}[decision.certified]
    if certificate is None:
        region = "dashed line: the certified region (none: this sweep certified no cell)"
        best = "diamond: the best-scoring certified cell (none: this sweep certified no cell)"
    elif not certificate.any:
        region = f"dashed line: the certified region (none: no cell is certified at {at_most(certificate.alpha)})"
        best = "diamond: the best-scoring certified cell (none: no cell is certified)"
    else:
        region = (f"dashed line: the certified region, the {int(certificate.certified.sum())} cell(s) whose "
                  f"wrong-answer rate is at most {at_most(certificate.alpha)}, all at once with probability at least "
                  f"{confidence(certificate.delta)}")
        best = ("diamond: the best-scoring certified cell "
                f"{where(result, decision.best_certified) if decision.best_certified is not None else '(none)'}")
    return [
        ("region", region),
        ("default", f"ring: the default {point_words(result.system.axes, (d.h, d.a))}"
                    + ("" if on_grid else " (not on this grid, so not drawn)")),
        ("bestCertified", best),
        ("recommended", f"star: the cell to ship {where(result, decision.cell)}{shipped} ({decision.action.value})"
         if decision.cell is not None else f"star: the rule's cell {where(result, decision.tuned)}; the decision "
         f"({decision.action.value}) keeps the default, which is not on this grid"),
        ("selected", "square frame: the selected cell, whose questions are listed below"),
    ]


def _json(value: Any) -> str:
    """JSON that cannot end the script element it sits in, nor break a line in JavaScript."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False, sort_keys=True)
    return "".join(_ESCAPES.get(char, char) for char in text)


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def document_head(policy: str, title: str, style: str) -> str:
    """A page's doctype and head: UTF-8, its Content-Security-Policy, the viewport, its title (escaped) and its
    styles inline."""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{style}</style>
</head>"""


def _drift(lines: Sequence[str]) -> str:
    """The drift of a refresh, above the decision: its verdict and its exit status, as text."""
    if not lines:
        return ""
    verdict, *rest = (html.escape(visible(line)) for line in lines)
    more = "".join(f"<br>{line}" for line in rest)
    return f"<section id=\"drift\" class=\"banner\"><h2>Drift</h2><p><strong>{verdict}</strong>{more}</p></section>\n"


def page(result: Sweep, drift: Sequence[str] = ()) -> str:
    """The whole page, deterministic for a given sweep; `drift`, a refresh's verdict and exit status in words, opens
    it."""
    script = _asset("page.js")
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    policy = (f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; img-src data:; "
              "base-uri 'none'; form-action 'none'")
    data = page_data(result)
    record = result.replayed.record
    name = visible(result.replayed.run_dir.name)
    facts = [f"{len(result.questions)} question(s), {result.repeats} repeat(s), evidence {record.evidence_word}; "
             f"score = correct + no-answer - {result.wrong_cost:g} x wrong"]
    if (pipeline := wording.pipeline_words(result)) is not None:
        facts.append(pipeline)
    banner = ("<p class=\"banner\"><strong>Synthetic evidence.</strong> Recorded against the stand-in API from "
              "invented probabilities: it shows what the harness reports, not how the real pipeline performs.</p>"
              if record.synthetic else "")
    items = "".join(f"<li>{html.escape(fact)}</li>" for fact in facts)
    legend = "".join(f"<li data-mark=\"{mark}\"><canvas class=\"mark\" data-mark=\"{mark}\" width=\"26\" "
                     f"height=\"26\"></canvas>{html.escape(words)}</li>" for mark, words in _mark_words(result))
    row = result.h_axis.text(result.decision.marked[0])
    first, second = (html.escape(spec.title) for spec in result.system.axes)
    rule = ("its bound and those of the cells to its right are" if result.guarantee.ordered else "its own bound is")
    alpha_words = (f"; a cell is certified when {rule} at most ALPHA, the dotted line"
                   if data["risk"]["alpha"] is not None else "")
    fewer = (f" Raising\n{second} moves left: fewer answers, fewer wrong ones." if result.system.axes[1].removes_quotes
             else "")
    score = "Compare probability" if result.system.quote_score == "answers" else "Score"
    star = "The star is the recommended cell; the decision above"
    marker = " (SYNTHETIC evidence)" if record.synthetic else ""
    title = wording.sweep_title(result)
    return f"""{document_head(policy, f"{title}: {name}{marker}", chr(10) + _asset("page.css"))}
<body>
<h1>{title}: {html.escape(name)}{marker}</h1>
{banner}
{_drift(drift)}{_decision(result)}
<ul class="facts">{items}</ul>
<h2>The grid</h2>
<p class="legend">Rows: {first}, rising upwards; columns: {second}, rising to the right. Each map has
its own colour bar, from its lowest value to its highest: purple to yellow where more is better (correct, no-answer,
score), pale to dark red where more is worse (wrong, missed, unjudged, unlabelled). Hover a cell for its counts
(means over repeats); click it to list its questions, then move with the arrow keys.</p>
<ul id="marks" class="marks">{legend}</ul>
<div id="heatmaps"></div>
<div id="tooltip" role="tooltip" hidden></div>
<h2>Wrong-answer rate against coverage</h2>
<p class="legend">Along {second} at the recommended {first} {html.escape(row)}, one point per
{second}: the share of questions answered (quoted) against the wrong-answer rate, observed (circles), both
in the data the guarantee uses (each question's first repeat), and its {html.escape(data["risk"]["boundWords"])}
(triangles: each cell's own bound, at the level the certificate's test uses there{alpha_words}).{fewer} {star}
states the bound that holds for it, a cell chosen after looking. Click a point to list its cell's questions.</p>
<div id="risk-coverage"></div>
<h2 id="cell-title"></h2>
<p id="cell-counts"></p>
<ul id="steps"></ul>
<div id="filters"></div>
<label>Search the ids, questions, sentences and titles shown
<input id="search" type="search" autocomplete="off"></label>
<p id="list-count"></p>
<table>
<thead><tr><th>Question</th><th>Text</th><th>Outcome</th><th>Quoted sentence, or the closest candidate</th>
<th>{score}</th><th>Source</th></tr></thead>
<tbody id="questions-body"></tbody>
</table>
<button id="more" type="button" hidden>Show more</button>
<script type="application/json" id="sweep-data">{_json(data)}</script>
<script>{script}</script>
</body>
</html>
"""
