"""The numbers an option takes (`core.values`): each refuses a value out of its bounds, of thousands of digits, NaN
or infinite, with words saying what it takes, and reads the values it takes."""

from __future__ import annotations

import argparse

import pytest

from quotefinder.core import values


@pytest.mark.parametrize(("parse", "text", "words"), [
    (values.positive_int, "0", "'0' is not a whole number from 1 to 10^12"),
    (values.positive_int, "1.5", "'1.5' is not a whole number from 1"),
    (values.positive_int, "1" + "0" * 13, "is not a whole number from 1 to 10^12"),
    (values.count, "-1", "'-1' is not a whole number from 0"),
    (values.count, "9" * 5000, "... (5000 characters) is not a whole number"),
    (values.seed, str(2**63), "is not a whole number from 0 to 2^63 - 1"),
    (values.jobs, "0", "is not a whole number of processes from 1 to 64"),
    (values.jobs, "65", "is not a whole number of processes from 1 to 64"),
    (values.concurrency, "100000", "from 1 to 1,000"),
    (values.repeats, "1001", "from 1 to 1,000"),
    (values.retries, "101", "from 0 to 100"),
    (values.folds, "1", "cross-validation needs at least 2 folds (0: none)"),
    (values.folds, "101", "a whole number from 0 to 100"),
    (values.wrong_cost, "1e300", "is not a number from 0 to 1,000,000"),
    (values.wrong_cost, "nan", "is not a number from 0"),
    (values.rate, "-1", "is not a rate from 0"),
    (values.timeout, "1e300", "from 0.001 to 86,400"),
    (values.timeout, "0", "from 0.001 to 86,400"),
    (values.backoff, "inf", "from 0 to 3,600"),
    (values.price, "1e10", "a price from 0 to 10^9"),
    (values.open_unit("--max-wrong-rate"), "1", "'1': --max-wrong-rate must be a number strictly between 0 and 1"),
    (values.open_unit("--delta"), "nan", "strictly between 0 and 1"),
    (values.open_unit("--answerable-share"), "1e-300", "from 1e-06 to 1 - 1e-06"),
    (values.open_unit("--max-wrong-rate"), "0.9999999", "from 1e-06 to 1 - 1e-06"),
    (values.open_unit("--level"), "0." + "1" * 5000, "strictly between 0 and 1"),
    (values.count, "1_0", "'1_0' is not a whole number"),
    (values.count, "\uff11", "is not a whole number"),  # a full-width 1
    (values.wrong_cost, "1_0.5", "is not a number"),
    (values.open_unit("--delta"), "0.0_5", "strictly between 0 and 1"),
])
def test_a_value_out_of_bounds_is_refused_saying_what_it_takes(parse, text: str, words: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as caught:
        parse(text)
    assert words in str(caught.value) and len(str(caught.value)) < 200


def test_the_values_each_takes_are_read() -> None:
    assert values.positive_int("3") == 3 and values.count("0") == 0 and values.count(str(10**12)) == 10**12
    assert values.folds("0") == 0 and values.folds("5") == 5 and values.seed(str(2**63 - 1)) == 2**63 - 1
    assert values.open_unit("x")("0.05") == 0.05 and values.open_unit("x")("1e-6") == 1e-6
    assert values.wrong_cost("2") == 2.0 and values.timeout("0.5") == 0.5 and values.rate("0") == 0
    bounded = values.bounded(float, 0, "a number >= 0", finite=False)
    assert bounded("inf") == float("inf")
    with pytest.raises(argparse.ArgumentTypeError):
        values.bounded(float, 0, "a finite number >= 0")("inf")
