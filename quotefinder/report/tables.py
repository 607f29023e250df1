"""The sweep's results as tables: `grid.csv`, `questions.csv`, `comparison.csv` and the flip table the
plots draw. The computing is done (`sweep`); these only lay it out, as columns (`Columns`) that `csv_bytes`
writes with the standard library's `csv`, plain values each (`cell`: a whole number as one, a gap empty), which
pandas reads back as they are (the tests do); the plots draw from the same columns.

Deterministic (stable orders, no clock), so a committed report diffs cleanly. Third-party text is made
inert on the way out (`textsafe.csv_text`).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ..core.textsafe import csv_texts
from ..questions import OUTCOMES
from ..sweep.analysis import Sweep
from ..sweep.compare import Comparison
from ..sweep.grid import CODE, JudgedCurve
from .numbers import plain_number

if TYPE_CHECKING:
    import pandas as pd

COUNT_COLUMNS = [outcome.value for outcome in OUTCOMES]  # correct, wrong, missed, no_answer, unjudged, unlabelled
LABELS = tuple(outcome.label for outcome in OUTCOMES)  # by outcome code, as people read them: "no-answer"

Columns = dict[str, Any]  # a table: each column's name and its cells in order (a numpy array or a list), all as long


def plain_numbers(values: np.ndarray) -> np.ndarray:
    """A column of `plain_number`s that stays as written: 6 stays 6 beside 5.6667, not 6.0. Each distinct value
    is written once (a grid's 10,201 cells hold a few hundred counts): -0.0 beside 0.0, or NaN beside NaN, is one
    value, written alike either way."""
    distinct, inverse = np.unique(np.ravel(values), return_inverse=True)
    return np.array([plain_number(v) for v in distinct.tolist()], dtype=object)[inverse]


def axis_column(result: Sweep, n: int) -> tuple[str, np.ndarray]:
    """One axis of the grid as a table holds it: its column's name (`AxisSpec.heading`) and its values as written
    (cutoffs as numbers, whole numbers as integers, choices by name)."""
    spec, axis = result.system.axes[n], (result.h_axis, result.a_axis)[n]
    if spec.kind == "choice":
        return spec.heading, np.array([axis.text(i) for i in range(len(axis.decimals))], dtype=object)
    return spec.heading, axis.values.astype(int) if spec.kind == "count" else axis.values


def _cells(result: Sweep) -> Columns:
    """The grid's cells, row-major: the first axis (HAS_ANSWER_CUTOFF), then the second (ANSWER_CUTOFF)."""
    h_index, a_index = np.meshgrid(np.arange(len(result.h_axis.decimals)), np.arange(len(result.a_axis.decimals)),
                                   indexing="ij")
    (rows, h_values), (columns, a_values) = axis_column(result, 0), axis_column(result, 1)
    return {rows: h_values[h_index.ravel()], columns: a_values[a_index.ravel()]}


def grid_table(result: Sweep) -> Columns:
    """One row per cell: both cutoffs, the five counts (means over repeats), then quoted, score,
    `<outcome>_min`/`_max` over repeats (when there are several), `certified` (true/false, with a requested
    wrong-answer rate), and evidence."""
    frame = _cells(result)
    flat = result.counts.reshape(-1, len(OUTCOMES))
    for column, outcome in zip(COUNT_COLUMNS, OUTCOMES, strict=True):
        frame[column] = plain_numbers(flat[:, CODE[outcome]])
    frame["quoted"] = plain_numbers(result.quoted)
    frame["score"] = plain_numbers(np.round(result.scores, 9))
    if result.repeats > 1:
        lows, highs = result.per_repeat.min(axis=0), result.per_repeat.max(axis=0)
        for column, outcome in zip(COUNT_COLUMNS, OUTCOMES, strict=True):
            frame[f"{column}_min"] = lows[..., CODE[outcome]].ravel()
            frame[f"{column}_max"] = highs[..., CODE[outcome]].ravel()
    certificate = result.guarantee.certificate
    if certificate is not None:
        frame["certified"] = ["true" if c else "false" for c in certificate.certified.ravel()]
    frame["evidence"] = [result.replayed.record.evidence_word] * len(flat)
    return frame


def _spans(values: Sequence[str], codes: np.ndarray) -> str:
    """'correct 0-0.95; missed 1': the outcome (by code) over runs of consecutive cutoff values."""
    return _spans_of(values, codes[None, :])[0]


def _spans_of(values: Sequence[str], codes: np.ndarray) -> list[str]:
    """`_spans` of every row of `codes` (rows, values): each distinct row spelled out once (a question set has
    far fewer distinct rows than questions), the others looked up by their bytes."""
    if not len(codes) or not codes.shape[1]:
        return [""] * len(codes)
    rows = np.ascontiguousarray(codes)
    raw, width = rows.tobytes(), rows.shape[1] * rows.itemsize
    spelled: dict[bytes, str] = {}
    spans = []
    for n in range(len(rows)):
        key = raw[n * width : (n + 1) * width]
        text = spelled.get(key)
        if text is None:
            text = spelled[key] = _row_spans(values, rows[n].tolist())
        spans.append(text)
    return spans


def _row_spans(values: Sequence[str], row: list[int]) -> str:
    """`_spans` of one row of codes: each run of one code, from its first value to its last."""
    parts, start, last = [], 0, len(row) - 1
    for end in range(len(row)):
        if end == last or row[end + 1] != row[end]:
            span = values[start] if end == start else f"{values[start]}-{values[end]}"
            parts.append(f"{LABELS[row[start]]} {span}")
            start = end + 1
    return "; ".join(parts)


def _along_answer(curve: JudgedCurve, h: float, title: str) -> str:
    """Where the outcome changes along the second axis (`title`) at one value of the first: each piece's outcome
    up to its bound, the last one's above."""
    bounds, pieces, codes = curve.along(h)
    if len(pieces) == 1:
        why = " (no candidate qualifies)" if pieces[0].quoted is None else ""
        return f"{LABELS[codes[0]]} at any {title}{why}"
    parts = [f"{LABELS[code]} up to {bound!r}" for bound, code in zip(bounds, codes, strict=False)]
    return "; ".join([*parts, f"{LABELS[codes[-1]]} above"])


def questions_table(result: Sweep, comparison: Comparison | None = None) -> Columns:
    """Per question: outcomes at the default and recommended points, the quote, where outcomes change
    (first repeat), whether it needs a label (quoted on the grid and not judgeable without a person), its
    outcomes in every repeat, and its change against a baseline (its outcome in each of the baseline's
    repeats, and the change judged on all repeats). Built a column at a time."""
    rec = result.recommended
    questions, default, recommended = result.questions, result.default.first, rec.first
    score_name, columns = result.system.quote_score, result.system.axes[1]
    broken = any(j.quote is not None and j.quote.broken for j in recommended)  # a column only where some quote is
    if not questions:
        return {}
    h_text = [result.h_axis.text(i) for i in range(len(result.h_axis.decimals))]
    a_text, a_values = [result.a_axis.text(j) for j in range(len(result.a_axis.decimals))], result.a_axis.values
    shown = [j.piece.display for j in recommended]  # what the reader sees at the recommended point
    at_quote = [j.quote for j in recommended]
    table: dict[str, list[Any]] = {
        "id": csv_texts(q.id for q in questions),
        "question": csv_texts(q.question for q in questions),
        "expect": [q.expect or "" for q in questions],
        "default_outcome": [j.outcome.value for j in default],
        "recommended_outcome": [j.outcome.value for j in recommended],
        "default_quote": csv_texts(j.sentence for j in default),
        "recommended_quote": csv_texts(j.sentence for j in recommended),
        "closest_if_no_quote": csv_texts(c.text if c and not q else "" for c, q in zip(shown, at_quote, strict=True)),
    }
    if score_name:
        table["answers"] = [c.score if c and c.score_name == score_name else "" for c in shown]
    table["source_title"] = csv_texts(c.title if c else "" for c in shown)
    table["source_url"] = csv_texts(c.url if c else "" for c in shown)
    table["source_date"] = csv_texts(c.date if c else "" for c in shown)
    table[f"along_{columns.heading}"] = (
        [_along_answer(curve, rec.h, columns.title) for curve in result.curves] if columns.kind == "cutoff" else
        [_spans(a_text, np.array([curve.at(rec.h, a)[1] for a in a_values])) for curve in result.curves])
    table[f"along_{result.system.axes[0].heading}"] = _spans_of(h_text, result.tables[0].outcomes(rec.a))
    if broken:  # why the quote is wrong, whatever it says
        table["broken"] = csv_texts(c.broken if c and q else "" for c, q in zip(shown, at_quote, strict=True))
    needing = {item.index for item in result.labels_needed}
    table["needs_label"] = ["true" if index in needing else "false" for index in range(len(questions))]
    if result.repeats > 1:
        table["recommended_by_repeat"] = [" ".join(o.value for o in rec.outcomes(index))
                                          for index in range(len(questions))]
    if comparison:
        changes = {row.question.question: row for row in comparison.rows}
        compared = [changes.get(q.question) for q in questions]
        table["baseline_outcome"] = [" ".join(o.value for o in c.before) if c else "" for c in compared]
        table["change"] = [c.kind.value if c else "" for c in compared]
    table["evidence"] = [result.replayed.record.evidence_word] * len(questions)
    return table


def comparison_table(result: Sweep, comparison: Comparison) -> Columns:
    """One row per cell: the run's mean counts minus the baseline's, and the score difference."""
    frame = _cells(result)
    flat = comparison.difference.reshape(-1, len(OUTCOMES))
    for column, outcome in zip(COUNT_COLUMNS, OUTCOMES, strict=True):
        frame[f"{column}_change"] = plain_numbers(flat[:, CODE[outcome]])
    frame["score_change"] = plain_numbers(comparison.score_difference)
    return frame


def flip_frame(result: Sweep) -> Columns:
    """Per question, at the recommended HAS_ANSWER_CUTOFF: where along ANSWER_CUTOFF its outcome flips.

    `flip` is the top candidate's compare probability (NaN when nothing qualifies): the outcome is
    `quoted` up to it and `unquoted` above.
    """
    columns: Columns = {"id": [], "flip": [], "quoted": [], "unquoted": []}
    for curve in result.curves:
        bounds, pieces, codes = curve.along(result.recommended.h)
        quoted = bool(bounds) and pieces[0].quoted is not None
        columns["id"].append(curve.question.id)
        columns["flip"].append(float(bounds[0]) if quoted else float("nan"))
        columns["quoted"].append(OUTCOMES[codes[0]].value if quoted else "")
        columns["unquoted"].append(OUTCOMES[codes[-1]].value)
    return columns


def csv_bytes(table: Columns | pd.DataFrame, *, text: bool = False) -> bytes:
    """The table as CSV with "\\n" line ends: columns (`Columns`) by `csv`, each cell a plain value (`cell`); a
    DataFrame (the drift, monitor and systems tables) by pandas' `to_csv`. With `text` (a table of page text)
    every text cell is quoted: Python's csv quotes a cell holding "\\n" but not one holding a lone "\\r", which a
    spreadsheet or pandas reads as a line end, so the rest of the cell would become a new row."""
    buffer = io.StringIO()
    quoting: Literal[0, 2] = csv.QUOTE_NONNUMERIC if text else csv.QUOTE_MINIMAL
    if isinstance(table, Mapping):
        writer = csv.writer(buffer, lineterminator="\n", quoting=quoting)
        writer.writerow(list(table))
        writer.writerows(zip(*([cell(value) for value in _listed(values)] for values in table.values()), strict=True))
    else:
        table.to_csv(buffer, index=False, lineterminator="\n", quoting=quoting)
    return buffer.getvalue().encode()


def _listed(values: Any) -> list[Any]:
    return values.tolist() if isinstance(values, np.ndarray) else list(values)


def cell(value: Any) -> Any:
    """One cell as `csv` writes it: text as it is; a gap (None, NaN) empty; a number as Python writes it (a
    float's shortest repr; `plain_numbers` already made a whole count an int)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return value
