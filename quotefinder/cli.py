"""What the command lines share: the option types of axes and ranges (the numbers' are `core.values`), the
words that explain the cutoffs, how an error, a SIGTERM or a closed stdout (`| head`) reaches the user, and
the cyclic collector paused while a sweep builds its result (`collector_paused`).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from decimal import Decimal, InvalidOperation
from typing import Any, ParamSpec, TextIO

from .core.errors import InputError, QuoteFinderError
from .core.textsafe import said, shown, visible
from .core.values import MAX_NUMBER_TEXT
from .sweep.grid import Axis, parse_axis

EXIT_OK, EXIT_WORSE, EXIT_ERROR = 0, 1, 2
# stdout's reader went away (`| head -1`): 128 + SIGPIPE, what the shell reports for a tool that SIGPIPE killed
# (`yes | head -1`). Not 1, which sweep.py uses for "worse": a CI script must not read a closed pipe
# as a failed gate, and with `set -o pipefail` it can tell the two apart.
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE (13)
BROKEN_PIPE_HELP = (f"{EXIT_BROKEN_PIPE} stdout was closed early (`| head`): it stopped quietly, and every file it "
                    "wrote is whole")


def axis(text: str) -> Axis:
    """A sweep axis 'START:STOP:STEP' (`grid.parse_axis`)."""
    try:
        return parse_axis(text)
    except InputError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def cutoff_range(text: str) -> tuple[float, float]:
    """'START:STOP' with 0 <= START <= STOP <= 1: every cutoff from START to STOP, both included; or a
    sweep axis 'START:STOP:STEP', which covers the same range."""
    if text.count(":") == 2:
        found = axis(text)
        return float(found.decimals[0]), float(found.decimals[-1])
    parts = text.split(":")
    try:
        if len(parts) != 2 or len(text) > 2 * MAX_NUMBER_TEXT:
            raise InvalidOperation
        start, stop = Decimal(parts[0]), Decimal(parts[1])
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"{shown(text)} is not START:STOP, e.g. 0:1 or 0.2:0.5") from None
    if not (start.is_finite() and stop.is_finite() and 0 <= start <= stop <= 1):
        raise argparse.ArgumentTypeError(f"{shown(text)}: need 0 <= START <= STOP <= 1")
    return float(start), float(stop)


def named_values(text: str) -> tuple[str, str]:
    """'NAME=VALUES': an axis name and its values as written (which axes exist, and what values each takes, is the
    command's to check once it knows the system)."""
    name, equals, values = text.partition("=")
    if not equals or not name.strip() or not values.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUES, e.g. has_answer=0.2:0.5 or tier=instant,deep")
    return name.strip(), values.strip()


def report_error(prog: str, error: BaseException, redact: Callable[[str], str] = str) -> None:
    """Print `error` for the terminal, after the error that led to it if there was one; `redact` blanks what
    must never be shown (eval.py's: every form of the API key)."""
    cause = error.__cause__
    if isinstance(cause, QuoteFinderError):
        print(redact(f"{prog}: {cause}"), file=sys.stderr)
    print(redact(f"{prog}: {error}"), file=sys.stderr)


P = ParamSpec("P")


def quiet_on_a_closed_stdout(main: Callable[P, int]) -> Callable[P, int]:
    """`main`, stopping quietly when the reader of stdout goes away (`python eval.py ... | head -1`): no
    traceback, no message, exit status `EXIT_BROKEN_PIPE`. The convention of the Python docs' "Note on
    SIGPIPE": stdout is flushed inside the guard (so that a failure cannot wait for the interpreter's exit),
    and after a broken pipe it is pointed at /dev/null, so that the final flush has nowhere to fail. What
    `main` saved before printing stays saved: both commands write their files first."""

    @functools.wraps(main)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> int:
        try:
            code = main(*args, **kwargs)
            sys.stdout.flush()
            return code
        except BrokenPipeError:
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
                os.close(devnull)
            except (OSError, ValueError):  # stdout is no file descriptor (a test's capture): nothing to redirect
                pass
            return EXIT_BROKEN_PIPE

    return guarded


DEBUG_ENV = "QUOTEFINDER_DEBUG"  # set (to anything): an unexpected error also prints its traceback


def _blanked(text: str) -> str:
    """`text` with every form of any API key in the environment (`*_API_KEY`) blanked: a message about an error no
    one expected may quote anything."""
    from .record.secret import Secret  # here: only an unexpected error needs it

    for variable, value in os.environ.items():
        if variable.endswith("_API_KEY") and value:
            text = Secret(value).redact(text)
    return text


class Inert:
    """A text stream (stdout, stderr) that writes every character that could move the cursor or reorder a line (an
    escape sequence, a bidirectional or zero-width character, any control but tab, newline and carriage return) as
    `<U+XXXX>` (`textsafe.visible`): whatever a run folder, a question id or a server's words hold, the terminal
    shows them, and they do nothing. Everything else is the stream's own (`isatty`, `fileno`, `flush`)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(visible(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextlib.contextmanager
def inert_output() -> Iterator[None]:
    """Within the block, stdout and stderr are `Inert`; as they were after it."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Inert(out), Inert(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


def guarded(prog: str) -> Callable[[Callable[P, int]], Callable[P, int]]:
    """A command's `main`, ending in exit 2 with one line for anything but its own exit status: an error of the
    project (its message), an interrupt, something that tried to end the process (`sys.exit` from a plugin), or an
    error no one expected (its type and message, blanked of any key; the traceback too with `QUOTEFINDER_DEBUG`).
    So exit 1 means only what the command returns it for: a gate that was checked and failed. Everything it prints
    is inert (`Inert`)."""

    def wrap(main: Callable[P, int]) -> Callable[P, int]:
        @functools.wraps(main)
        def run(*args: P.args, **kwargs: P.kwargs) -> int:
            with inert_output():
                return _guarded_run(prog, main, *args, **kwargs)

        return run

    return wrap


def _guarded_run(prog: str, main: Callable[P, int], *args: P.args, **kwargs: P.kwargs) -> int:
    """`main(*args, **kwargs)` under `guarded`'s rules: whatever it raises (a `BaseException` of a plugin's own
    included), exit 2 with one line, but a broken pipe on stdout (`quiet_on_a_closed_stdout`'s, exit 141)."""
    try:
        return main(*args, **kwargs)
    except BrokenPipeError as error:
        if stdout_closed():
            raise
        _unexpected(prog, error)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
    except QuoteFinderError as error:
        report_error(prog, error, _blanked)
    except SystemExit as done:
        print(f"{prog}: something it ran tried to end the process (SystemExit({said(done.code)})), so nothing "
              "was decided: a plugin of the quotefinder.systems entry point group, or a bug", file=sys.stderr)
    except BaseException as error:  # anything else: an error no one expected, or a plugin's own exception class
        _unexpected(prog, error)
    return EXIT_ERROR


def _unexpected(prog: str, error: BaseException) -> None:
    if os.environ.get(DEBUG_ENV):
        import traceback

        with contextlib.suppress(Exception):  # (a traceback that cannot be formatted: the line below says enough)
            print(_blanked("".join(traceback.format_exception(error))), file=sys.stderr, end="")
    print(_blanked(f"{prog}: stopped by an unexpected error, so nothing was decided: {type(error).__name__}: "
                   f"{said(error)}. This is a bug; please report it with the command you ran (set {DEBUG_ENV}=1 "
                   "to see where it happened)"), file=sys.stderr)


def stdout_closed() -> bool:
    """Whether stdout's reader has gone (a pipe whose other end is closed: `poll` says POLLERR); False when stdout
    is no file descriptor."""
    import select

    try:
        fd = sys.stdout.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))
    except (AttributeError, ValueError, OSError):
        return False


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # SIGTERM outside a recording loop: stop like Ctrl+C


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Within the block, no cyclic garbage collection (`gc.disable`); as before after it.

    A sweep builds hundreds of thousands of long-lived objects (curves, quotes, questions, the replay index)
    and makes almost no reference cycles; each time the heap grows by a quarter, CPython's collector walks all
    of it again, which costs a 10,000-question sweep about a fifth of its time (BENCHMARKS.md) and frees
    nothing. Reference counting still frees everything that is not a cycle; children forked meanwhile (the replay
    workers) inherit the setting, and want it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM stops the process the way Ctrl+C does (in the main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
