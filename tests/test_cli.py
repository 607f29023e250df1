"""What the command lines share (`cli`): option types of axes and ranges that refuse a bad value with a message
that says what was expected, and an error reported after the error that led to it, with the key redacted."""

from __future__ import annotations

import argparse

import pytest

from quotefinder import cli
from quotefinder.core.errors import InputError, RunDirError


@pytest.mark.parametrize(("parse", "text", "words"), [
    (cli.cutoff_range, "0.5:0.2", "'0.5:0.2': need 0 <= START <= STOP <= 1"),
    (cli.cutoff_range, "0:1.5", "need 0 <= START <= STOP <= 1"),
    (cli.cutoff_range, "half", "'half' is not START:STOP, e.g. 0:1 or 0.2:0.5"),
    (cli.cutoff_range, "nan:1", "need 0 <= START <= STOP <= 1"),
    (cli.cutoff_range, "0:" + "1" * 5000, "is not START:STOP"),
    (cli.cutoff_range, "0:1:1e-99999999", "STEP must be at least 0.000000001"),
    (cli.axis, "0:1:1e-99999999", "STEP must be at least 0.000000001"),
    (cli.axis, "0." + "1" * 5000 + ":1:0.1", "longer than an axis can be written"),
    (cli.named_values, "tier", "'tier' is not NAME=VALUES"),
    (cli.named_values, "=deep", "is not NAME=VALUES"),
])
def test_a_bad_value_is_refused_saying_what_was_expected(parse, text: str, words: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as caught:
        parse(text)
    assert words in str(caught.value) and len(str(caught.value)) < 300


def test_good_values_are_read() -> None:
    assert cli.cutoff_range("0.2:0.5") == (0.2, 0.5) and cli.cutoff_range("0:1:0.25") == (0.0, 1.0)
    assert cli.named_values(" tier = instant,deep ") == ("tier", "instant,deep")
    assert cli.axis("0:1:0.5").values.tolist() == [0.0, 0.5, 1.0]
    assert cli.axis("0.3:0.3:1e-99999999").values.tolist() == [0.3]  # one value: no step is taken


def test_an_error_is_reported_after_its_cause_and_redacted(capsys) -> None:
    try:
        try:
            raise RunDirError("runs/x: not a run")
        except RunDirError as cause:
            raise InputError("cannot sweep with secret-key") from cause
    except InputError as error:
        cli.report_error("sweep.py", error, redact=lambda text: text.replace("secret-key", "[key]"))
    assert capsys.readouterr().err == "sweep.py: runs/x: not a run\nsweep.py: cannot sweep with [key]\n"
    cli.report_error("eval.py", InputError("plain"))
    assert capsys.readouterr().err == "eval.py: plain\n"


def _guarded(work):
    return cli.guarded("quotefinder sweep")(work)


@pytest.mark.parametrize(("stop", "words"), [
    (SystemExit(0), "something it ran tried to end the process (SystemExit(0)), so nothing was decided"),
    (SystemExit("\x1b[2Jbye"), "SystemExit(<U+001B>[2Jbye)"),
    (RuntimeError("boom \x1b[2J"), "stopped by an unexpected error, so nothing was decided: RuntimeError: boom "
                                   "<U+001B>[2J"),
    (type("Boom", (BaseException,), {})("\x1b]0;pwned\x07"), "unexpected error, so nothing was decided: Boom: "
                                                             "<U+001B>]0;pwned<U+0007>"),
    (type("Mute", (Exception,), {"__str__": lambda self: 1 / 0})(), "Mute: <Mute that cannot say what it is>"),
    (BrokenPipeError("a plugin's own"), "unexpected error, so nothing was decided: BrokenPipeError"),
    (KeyboardInterrupt(), "quotefinder sweep: interrupted"),
    (InputError("bad input"), "quotefinder sweep: bad input"),
])
def test_anything_but_a_status_ends_in_exit_2_with_one_line(capsys, stop: BaseException, words: str) -> None:
    """Exit 1 is a failed gate's alone: an exit a plugin tries, an exception no one expected, an interrupt or an error
    of the project all end in exit 2 with one line on stderr, nothing that moves the terminal."""

    def work() -> int:
        raise stop

    assert _guarded(work)() == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and "\x1b" not in err and "Traceback" not in err


def test_a_status_passes_through_and_an_unexpected_error_never_shows_a_key(capsys, monkeypatch) -> None:
    assert _guarded(lambda: cli.EXIT_WORSE)() == cli.EXIT_WORSE
    monkeypatch.setenv("PERPLEXITY_API_KEY", "pplx-secret-value-123456")

    def leaky() -> int:
        raise ValueError("sent pplx-secret-value-123456 to the server")

    assert _guarded(leaky)() == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert "pplx-secret" not in err and "[key]" in err
    monkeypatch.setenv(cli.DEBUG_ENV, "1")
    assert _guarded(leaky)() == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert "Traceback" in err and "pplx-secret" not in err
