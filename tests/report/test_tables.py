"""The report's CSV writer for columns (`tables.csv_bytes`, the standard library's `csv`, so that a sweep writing
tables alone never imports pandas) held byte for byte to pandas' `to_csv`, which wrote every report before it: on
the columns of random DataFrames of the kinds of cells the reports hold, and on random rows, typed as
`pandas.DataFrame(rows)` types them; then read back by `csv` and pandas as a person's tools would."""

from __future__ import annotations

import csv
import io
import itertools
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT
from quotefinder.questions import OUTCOMES
from quotefinder.report.numbers import p_value, p_words, plain_number
from quotefinder.report.tables import _rows_as_columns, _spans_of, csv_bytes, plain_numbers
from quotefinder.sweepcmd import main

TEXTS = ["", "plain", "a,b", 'say "so"', "two\nlines", "lone\rreturn", " lead", "trail ", "naïve – ünïcode", "1",
         "nan", "None", "=1+1", "'quoted'", "tab\there"]
FLOATS = [0.0, -0.0, 0.1, 0.35, 1 / 3, 1e-05, 1e16, 123456789.123, 0.30000000000000004, 2.0, -7.5, float("nan")]


def pandas_bytes(frame: pd.DataFrame, text: bool) -> bytes:
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC if text else csv.QUOTE_MINIMAL)
    return buffer.getvalue().encode()


def cell(rng: random.Random, kind: str) -> object:
    if kind == "text":
        return rng.choice(TEXTS)
    if kind == "int":
        return rng.randint(-5, 10**6)
    if kind == "float":
        return rng.choice(FLOATS)
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "none":
        return None
    if kind == "big":
        return rng.choice([2**63 - 1, 2**63, 2**64 - 1, 2**64, -2**63, -2**63 - 1, 2**70])
    if kind == "numpy":
        return rng.choice([np.float64, np.float32])(rng.choice(FLOATS))
    return np.int64(rng.randint(0, 9)) if rng.random() < 0.5 else np.bool_(rng.random() < 0.5)


def random_column(rng: random.Random, rows: int) -> object:
    shape = rng.choice(["float", "int", "bool", "text", "object", "numbers"])
    if shape == "float":
        return np.array([rng.choice(FLOATS) for _ in range(rows)])
    if shape == "int":
        return np.array([rng.randint(-10, 10**9) for _ in range(rows)], dtype=np.int64)
    if shape == "bool":
        return np.array([rng.random() < 0.5 for _ in range(rows)])
    if shape == "text":
        return (pd.Series([rng.choice(TEXTS) for _ in range(rows)], dtype=object) if rng.random() < 0.7 else
                np.array([rng.choice(TEXTS) for _ in range(rows)], dtype=str))
    kinds = ["int", "float", "none"] if shape == "numbers" else ["text", "int", "float", "bool", "none", "numpy",
                                                                 "npint"]
    return pd.Series([cell(rng, rng.choice(kinds)) for _ in range(rows)], dtype=object)


@pytest.mark.parametrize("seed", range(200))
def test_a_frame_is_written_as_pandas_writes_it(seed: int) -> None:
    rng = random.Random(seed)
    rows = rng.choice([0, 1, 2, 7, 30])
    frame = pd.DataFrame({f"c{n}": random_column(rng, rows) for n in range(rng.randint(1, 6))})
    columns = {name: frame[name].to_numpy() for name in frame.columns}  # as the report's tables hand them over
    for text in (False, True):
        assert csv_bytes(columns, text=text) == pandas_bytes(frame, text)


@pytest.mark.parametrize("seed", range(200))
def test_rows_are_typed_and_written_as_a_dataframe_of_them_would_be(seed: int) -> None:
    """Rows of mixed cells, some without a column: a column of numbers that holds a float or a gap is all floats
    (pandas writes 1 as 1.0 there), any other column keeps its cells, a missing key is a gap."""
    rng = random.Random(1000 + seed)
    names = [f"k{n}" for n in range(rng.randint(1, 5))]
    shapes = {name: rng.choice([["int"], ["int", "float"], ["int", "none"], ["float", "none"], ["text"],
                                ["text", "none"], ["bool"], ["bool", "none"], ["int", "bool"], ["none"],
                                ["text", "int", "float", "bool", "none"], ["big", "float"], ["big", "none"],
                                ["big", "int"], ["numpy", "int"], ["npint", "float", "none"]]) for name in names}
    rows = [{name: cell(rng, rng.choice(shapes[name])) for name in names if rng.random() < 0.95}
            for _ in range(rng.choice([1, 2, 5, 25]))]
    for text in (False, True):
        assert csv_bytes(_rows_as_columns(rows), text=text) == pandas_bytes(pd.DataFrame(rows), text)


def test_what_it_writes_reads_back_cell_for_cell() -> None:
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


def test_a_column_it_cannot_write_as_pandas_would_is_refused() -> None:
    with pytest.raises(TypeError, match="float32"):
        csv_bytes({"a": np.array([0.1], dtype=np.float32)})



def test_the_demo_tables_are_the_committed_ones_byte_for_byte(ten: Path, tmp_path: Path) -> None:
    """grid.csv and questions.csv of the demo, written without pandas, are the committed report's, which pandas
    wrote (`.ci/run` checks every committed report the same way)."""
    assert main([str(ten), "--out", str(tmp_path / "out"), "--no-plots"]) == 0
    for name in ("grid.csv", "questions.csv"):
        assert (tmp_path / "out" / name).read_bytes() == (ROOT / "reports" / "ten" / name).read_bytes(), name


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
