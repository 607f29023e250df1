"""The report's tables (`tables`): each written by `csv` as plain values (`csv_bytes`) and read back by pandas, as a
person's tools read them, holding the values the analysis computed; page text with quotes, commas and line ends read
back cell for cell; the outcome runs along an axis spelled out for every question."""

from __future__ import annotations

import csv
import io
import itertools
import math
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from quotefinder.questions import OUTCOMES
from quotefinder.report.numbers import p_value, p_words, plain_number
from quotefinder.report.tables import _spans_of, csv_bytes, grid_table, plain_numbers, questions_table
from quotefinder.sweep.session import SweepOptions, run_sweep

TEXTS = ["", "plain", "a,b", 'say "so"', "two\nlines", "lone\rreturn", " lead", "trail ", "naïve – ünïcode", "1",
         "nan", "None", "=1+1", "'quoted'", "tab\there"]
FLOATS = [0.0, -0.0, 0.1, 0.35, 1 / 3, 1e-05, 1e16, 123456789.123, 0.30000000000000004, 2.0, -7.5, float("nan")]


def read_back(data: bytes, **options: object) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(data), keep_default_na=False, na_values=[""], **options)


@pytest.mark.parametrize("seed", range(40))
def test_columns_of_every_kind_read_back_as_their_values(seed: int) -> None:
    """Random columns of the cells the reports hold (text, whole numbers, floats, gaps; numpy arrays or lists),
    written and read back by pandas: every number is the number written (a gap NaN), every text the text."""
    rng = random.Random(seed)
    rows = rng.choice([1, 2, 7, 30])
    numbers = {f"n{k}": [rng.choice([*FLOATS, None, rng.randint(-5, 10**6)]) for _ in range(rows)] for k in range(3)}
    numbers["array"] = np.array([rng.choice(FLOATS) for _ in range(rows)])
    texts = {"t": [rng.choice([t for t in TEXTS if t]) for _ in range(rows)]}
    for text in (False, True):  # (page text goes only in a text table, where a lone carriage return is quoted)
        back = read_back(csv_bytes({**numbers, **texts} if text else numbers, text=text), dtype={"t": str})
        for name, values in numbers.items():
            expected = [math.nan if v is None else float(v) for v in (values.tolist() if isinstance(
                values, np.ndarray) else values)]
            assert np.allclose(back[name].to_numpy(dtype=float), expected, rtol=0, atol=0, equal_nan=True), name
        if text:  # (a lone carriage return survives only quoted)
            assert back["t"].tolist() == texts["t"]


def test_page_text_reads_back_cell_for_cell() -> None:
    """Page text with quotes, commas and line ends, read back by `csv` and by pandas as the same cells."""
    texts = [t for t in TEXTS if t != "lone\rreturn"]  # (read back only from a text table, where it is quoted)
    table = {"id": [f"q{n}" for n in range(len(texts))], "text": texts, "score": [0.5] * len(texts)}
    for text in (False, True):
        data = csv_bytes(table, text=text).decode()
        rows = list(csv.reader(io.StringIO(data)))
        assert rows[0] == ["id", "text", "score"] and [r[1] for r in rows[1:]] == texts
        back = pd.read_csv(io.StringIO(data), keep_default_na=False, dtype=str)
        assert back["text"].tolist() == texts and back["score"].tolist() == ["0.5"] * len(texts)
    quoted = csv_bytes({"text": ["lone\rreturn"]}, text=True).decode()
    assert pd.read_csv(io.StringIO(quoted), keep_default_na=False)["text"].tolist() == ["lone\rreturn"]


def test_the_demo_s_grid_reads_back_as_the_analysis_computed_it(ten: Path) -> None:
    """grid.csv read by pandas: a row per cell, the first axis outermost, each count the mean over repeats, with each
    repeat's least and most, quoted and score, as the sweep holds them."""
    result, _ = run_sweep(SweepOptions(ten, None, None), say=lambda _: None)
    grid = read_back(csv_bytes(grid_table(result)))
    h, a = result.h_axis.values, result.a_axis.values
    assert grid["has_answer_cutoff"].tolist() == np.repeat(h, len(a)).tolist()
    assert grid["answer_cutoff"].tolist() == np.tile(a, len(h)).tolist()
    for code, outcome in enumerate(OUTCOMES):
        column = outcome.value
        assert np.allclose(grid[column], result.counts[..., code].ravel(), rtol=0, atol=5e-5), column
        assert grid[f"{column}_min"].tolist() == result.per_repeat.min(axis=0)[..., code].ravel().tolist()
        assert grid[f"{column}_max"].tolist() == result.per_repeat.max(axis=0)[..., code].ravel().tolist()
    assert np.allclose(grid["quoted"], result.quoted.ravel(), rtol=0, atol=5e-5)
    assert np.allclose(grid["score"], result.scores.ravel(), rtol=0, atol=5e-5)
    assert set(grid["evidence"]) == {"synthetic"}


def test_the_demo_s_questions_read_back_as_the_analysis_computed_them(ten: Path) -> None:
    result, _ = run_sweep(SweepOptions(ten, None, None), say=lambda _: None)
    table = questions_table(result)
    back = read_back(csv_bytes(table, text=True), dtype=str)
    assert list(back.columns) == list(table)
    assert back["id"].tolist() == [q.id for q in result.questions]
    assert back["recommended_outcome"].tolist() == [j.outcome.value for j in result.recommended.first]
    assert back["recommended_quote"].fillna("").tolist() == [j.sentence or "" for j in result.recommended.first]
    scores = [float(v) if v != "" else math.nan for v in table["answers"]]
    assert np.allclose(back["answers"].astype(float), scores, equal_nan=True)


def spans_by_hand(values: list[str], row: list[int]) -> str:
    """A row of outcome codes as questions.csv's `along_*` columns spell it, written out run by run."""
    parts, start = [], 0
    for code, run in itertools.groupby(row):
        length = len(list(run))
        end = start + length - 1
        where = values[start] if length == 1 else f"{values[start]}-{values[end]}"
        parts.append(f"{OUTCOMES[code].label} {where}")
        start = end + 1
    return "; ".join(parts)


@pytest.mark.parametrize("seed", range(20))
def test_the_outcome_runs_along_an_axis_are_spelled_out_for_every_question(seed: int) -> None:
    """Each row is spelled as its runs are (rows repeat: each distinct one is spelled once and the rest looked up,
    which must never hand one row another's text), for codes of int8 and of int64, one value to many."""
    rng = np.random.default_rng(seed)
    width = int(rng.integers(1, 40))
    values = [f"{k / 100:g}" for k in range(width)]
    shared = rng.integers(0, len(OUTCOMES), (int(rng.integers(1, 6)), width))
    shared = np.sort(shared, axis=1) if seed % 2 else shared  # long runs, or short ones
    edited = np.concatenate([shared, shared])  # the shared rows with only their last value, or their first, changed
    edited[: len(shared), -1] = (edited[: len(shared), -1] + 1) % len(OUTCOMES)
    edited[len(shared) :, 0] = (edited[len(shared) :, 0] + 2) % len(OUTCOMES)
    rows = np.concatenate([shared[rng.integers(0, len(shared), 50)], edited,
                           rng.integers(0, len(OUTCOMES), (10, width)), shared])
    rows = rows[rng.permutation(len(rows))]
    for dtype in (np.int8, np.int64):
        assert _spans_of(values, rows.astype(dtype)) == [spans_by_hand(values, row.tolist()) for row in rows]
    flipped = np.asfortranarray(rows[:, ::-1])  # neither C-ordered nor a row at a time in memory
    assert _spans_of(values, flipped) == [spans_by_hand(values, row.tolist()) for row in flipped]
    assert _spans_of(values, rows[:0]) == []


@pytest.mark.parametrize("seed", range(5))
def test_a_column_of_numbers_is_written_as_each_number_alone_would_be(seed: int) -> None:
    """`plain_numbers` writes each distinct value once: the cells are still what `plain_number` makes of each
    (an int where the value is whole, else rounded to 4 decimals), -0.0 and NaN included, in the grid's order."""
    rng = np.random.default_rng(seed)
    pool = np.array([*FLOATS, float("inf"), -float("inf"), 5.66666666, 6.00004, 6.00005, 2.5e-05, 3.0])
    values = np.concatenate([rng.choice(pool, 300), rng.integers(0, 40, 290) / 3, rng.normal(size=50)])
    rng.shuffle(values)
    for column in (values, values.reshape(20, -1), rng.integers(-3, 9, 200), values[:0]):
        written = plain_numbers(column)
        expected = [plain_number(v) for v in np.ravel(column)]
        assert written.dtype == object and len(written) == len(expected)
        assert [(type(w), repr(w)) for w in written] == [(type(e), repr(e)) for e in expected]


def test_every_p_value_is_written_by_one_rule() -> None:
    """Two significant figures of the p-value itself, the cap at 1 written as 1, the smallest as a bound, and the
    phrase 'p = ...' reads the same number (drift, systems and the decision all call these two)."""
    rng = np.random.default_rng(0)
    for value in rng.uniform(0.001, 1.0, 200):
        assert float(p_value(value)) == pytest.approx(value, rel=0.051)
        assert p_words(value) == "p = " + p_value(value)
    assert [p_value(v) for v in (1.0, 1.0000000002, 0.5, 0.0196, 0.00099, 0.0, None)] == [
        "1", "1", "0.5", "0.02", "< 0.001", "< 0.001", "-"]
    assert p_words(2e-5) == "p < 0.001" and p_words(1.0) == "p = 1"


def test_a_point_is_written_by_its_axes_alone_or_titled() -> None:
    """The sweep's reports write a point as its axes' values in brackets, the recording's terminal and the monitor
    with each axis's title: the same values, from the same `AxisSpec.shown`."""
    from quotefinder.core.registry import system
    from quotefinder.report.numbers import point_words, titled_point_words

    axes = system("quote-finder").axes
    point = (0.1 + 0.2, 0.6)
    values = [spec.shown(value) for spec, value in zip(axes, point, strict=True)]
    assert point_words(axes, point) == f"({values[0]}, {values[1]})" and values[0] == "0.3"
    assert titled_point_words(axes, point) == f"{axes[0].title} {values[0]}, {axes[1].title} {values[1]}"
