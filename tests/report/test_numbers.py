"""Numbers as people read them: a bound is rounded the way that never overstates the claim (an upper bound
up, a lower bound down), a confidence is never shown as 100% when it is not, and p-values stop at 0.001."""

from __future__ import annotations

import random

from quotefinder.report.numbers import at_least, at_most, confidence, p_words, plain_number, share


def test_an_upper_bound_is_rounded_up_and_a_lower_bound_down() -> None:
    assert at_most(0.4032) == "40.4%" and at_least(0.6097) == "60.9%"
    assert at_most(0.5) == at_least(0.5) == "50%"  # exact: no rounding either way
    assert at_most(0.000123456) == "0.0124%" and at_least(0.000123456) == "0.0123%"
    assert at_most(1e-15) == at_least(0.0) == "0%"  # floating-point dust is zero


def test_rounding_never_crosses_the_value() -> None:
    rng = random.Random(5)
    for _ in range(2000):
        value = rng.random()
        assert float(at_most(value).rstrip("%")) / 100 >= value - 1e-12
        assert float(at_least(value).rstrip("%")) / 100 <= value + 1e-12


def test_a_confidence_is_never_shown_as_certain() -> None:
    assert confidence(0.05) == "95%"
    assert confidence(1e-9) == "99.9%"  # rounded down, never up to 100%
    assert confidence(1e-17) == "99.9%+"  # 1 - delta is 1.0 in floating point, and still not certain
    assert confidence(0.0) == "100%"


def test_plain_numbers_shares_and_p_values() -> None:
    assert plain_number(3.0) == 3 and isinstance(plain_number(3.0), int)
    assert plain_number(2 / 3) == 0.6667
    assert share(2 / 3) == "67%"
    assert p_words(0.0004) == "p < 0.001" and p_words(0.0423) == "p = 0.042"
