"""The work of the sweeping verbs (`quotefinder sweep`, `compare`, `drift`, `monitor`, `review`), each parsed by
its own parser (`options.verb_parser` and the option groups): the options checked together, the grid resolved
against the run's system, then options, replay, analysis, result, presentation, exit code, one way. Never opens a
network connection; needs no key.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from .. import cli
from ..config import point_of
from ..core.errors import InputError, QuoteFinderError
from ..core.plugin import System
from ..core.registry import DEFAULT_SYSTEM, axis_spec, system
from ..core.storage import cache_refused
from ..record.rundir import RUN_FILE, RunRecord, recorded_system
from ..report import console
from ..report.directory import (
    ReportDir,
    default_out,
    inside_a_run,
    write_monitor_report,
    write_report,
    write_systems_report,
)
from ..report.figures import formats
from ..sweep.analysis import Settings
from ..sweep.compare import SIGNIFICANCE
from ..sweep.grid import Axis, cell_index, parse_axis
from ..sweep.guarantee import DELTA
from ..sweep.replay import index_written, run_system
from ..sweep.session import SweepOptions, grid_axes, run_drift, run_monitor, run_sweep, run_systems
from ..sweep.stats import LEVEL

EXIT_OK, EXIT_WORSE, EXIT_ERROR = cli.EXIT_OK, cli.EXIT_WORSE, cli.EXIT_ERROR


# options with no effect on what a report says
QUIET = {"out", "jobs", "force", "no_index", "no_plots", "no_html", "figures"}


def _typed(given: Sequence[str], parser: argparse.ArgumentParser) -> Iterator[tuple[argparse.Action, str, str]]:
    """Each option typed (`given`, the command line after the program), in the order typed: its action, its flag
    as argparse knows it, and its value ('' for a switch)."""
    words = iter(given)
    for word in words:
        if not word.startswith("--"):
            continue  # a run, or a value read with its option
        flag, equals, value = word.partition("=")
        actions = parser._option_string_actions  # (argparse has no public look-up of an option by its flag)
        if flag not in actions:  # an abbreviation argparse accepted: the one option it starts
            flag = next((name for name in actions if name.startswith(flag)), flag)
        action = actions.get(flag)
        if action is None:
            continue
        if action.nargs != 0 and not equals:
            value = next(words, "")
        yield action, flag, value


def echoed(given: Sequence[str], parser: argparse.ArgumentParser) -> tuple[str, ...]:
    """The options typed (`given`, the command line after the program), in the order typed, as `--name value`: for
    the summary to echo what it was given, the report's paths, processes and tidying left out."""
    return tuple(flag if action.nargs == 0 else f"{flag} {value}" for action, flag, value in _typed(given, parser)
                 if action.dest not in QUIET)


def _gated(args: argparse.Namespace) -> bool:
    """Whether `--at` has a bound to check: --max-wrong, --min-correct, or --max-wrong-rate (for `drift`, that is the
    drift's own test of the rate now, not a gate)."""
    return args.max_wrong is not None or args.min_correct is not None or (
        args.max_wrong_rate is not None and args.verb != "drift")


def _settings(args: argparse.Namespace, echo: tuple[str, ...]) -> Settings:
    return Settings(wrong_cost=args.wrong_cost, folds=args.folds, seed=args.seed, level=args.level,
                    max_wrong_rate=args.max_wrong_rate, delta=args.delta, answerable_share=args.answerable_share,
                    options=echo)


def _refusal(args: argparse.Namespace) -> str:
    """Why these options cannot go together ('' when they can), said before anything is replayed."""
    if args.strict and args.baseline is None:
        return "--strict makes the comparison with a baseline stricter: give the earlier run with --baseline RUN"
    if args.baseline is not None and any(args.baseline.resolve() == run.resolve() for run in args.runs):
        return f"--baseline {args.baseline} is the run swept: compare it with an earlier run of its own"
    if inside := inside_a_run(args.out or out_of(args), (*args.runs, args.baseline)):
        where = "--out " if args.out else "the default report directory "
        return f"{where}{inside} with --out DIR"
    # A check is about one cell of the grid; the comparison with --baseline alone may be at any point.
    checks = [name for name, value in (("--max-wrong", args.max_wrong), ("--min-correct", args.min_correct),
                                       ("--max-wrong-rate", args.max_wrong_rate)) if value is not None]
    grid = args.first is not None and args.second is not None and args.verb != "monitor"  # (else checked once the
    # run names them; the monitor replays the cell --at alone)
    if grid and args.at is not None and checks and (cell_index(args.first.values, args.at[0]) is None
                                                    or cell_index(args.second.values, args.at[1]) is None):
        return (f"--at {args.at_text} is not a cell of the grid, so {' and '.join(checks)} cannot check it; choose "
                "a point on the grid's axes (--grid NAME=...)")
    return ""


def named_axis(text: str) -> tuple[str, str]:
    """'NAME=VALUES': an axis name and its grid as written (which names exist, and what values each takes, is the
    run's system's to say: `_resolve_grid`)."""
    name, equals, spec = text.partition("=")
    if not equals or not name.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=START:STOP:STEP, e.g. has_answer=0.2:0.5:0.01 "
                                         "(or NAME=A,B for an axis of names, e.g. tier=instant,deep)")
    return name.strip(), spec.strip()


def figure_formats(text: str) -> tuple[str, ...]:
    """'FORMAT[,FORMAT]' (--figures): the files each figure is written as, png, svg or pdf (`figures.FORMATS`)."""
    try:
        return formats(text.split(","))
    except InputError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def system_of(argv: Sequence[str], parser: argparse.ArgumentParser) -> tuple[System, str]:
    """The system the first run named on the command line was recorded with (the default system when none is
    named, or it cannot be read), and words saying where it came from: for the configuration's `at` and grid. An
    option's value (--baseline RUN) is not a run named (`parser` says which options are switches)."""
    switches = {flag for flag, action in parser._option_string_actions.items() if action.nargs == 0}
    value = False
    for arg in argv:
        if value or arg.startswith("-"):
            value = not value and arg.startswith("-") and arg not in switches and "=" not in arg
            continue
        if (Path(arg) / RUN_FILE).is_file():
            named = recorded_system(arg)  # only its name: the whole run.json is read (and checked) by the sweep
            if named is not None:
                return system(named), f"recorded in {arg}"
            break
    return system(DEFAULT_SYSTEM), "the default; name a run before --help for its own"


def _resolve_grid(args: argparse.Namespace, under_test: System) -> str:
    """Fill `args.first` and `args.second` (the grid's rows and columns) from --grid NAME=..., the system's default
    grid where it is not given (`System.default_grid`; None for a system without one: what the run recorded,
    `session.grid_axes`); why not ('') when an axis is unknown, given twice, or given values it does not take."""
    axes: list[Axis | None] = [None, None]
    for name, text in args.grid:
        try:
            spec = axis_spec(under_test, name)
            index = under_test.axes.index(spec)
        except KeyError as unknown:
            return f"--grid {name}=...: {unknown.args[0]}"
        if axes[index] is not None:
            return f"the {name} axis is given twice (--grid {name}=...): give it once"
        try:
            axes[index] = parse_axis(text, f"--grid {name}", spec)
        except InputError as error:
            return str(error)
    grid = under_test.default_grid  # None: each axis's default is what the run recorded
    args.first, args.second = (axis if axis is not None or grid is None else cli.axis(grid) for axis in axes)
    return ""


# Every option of every sweeping verb, at its default: a verb has only its own options (a value it lacks is left
# unset, `argparse.SUPPRESS`), and the work below reads them all.
DEFAULTS: dict[str, object] = {
    "questions": None, "grid": [], "out": None, "force": False, "no_plots": False, "no_html": False,
    "figures": ("png",), "wrong_cost": 2.0, "allow_incomplete": False, "no_index": False,
    "jobs": min(os.cpu_count() or 1, 8), "folds": None, "level": LEVEL, "answerable_share": None,
    "max_wrong_rate": None, "delta": DELTA, "seed": 0, "at": None, "max_wrong": None, "min_correct": None,
    "baseline": None, "significance": SIGNIFICANCE, "strict": False, "drift": None, "monitor": False,
    "review": False}


def completed(args: argparse.Namespace) -> argparse.Namespace:
    """`args` with every option its verb's parser lacks at its default (`DEFAULTS`)."""
    for name, default in DEFAULTS.items():
        if not hasattr(args, name):
            setattr(args, name, list(default) if isinstance(default, list) else default)
    return args


def verb_of(args: argparse.Namespace) -> str:
    """The verb a parsed command line is (each verb's parser sets `verb`)."""
    return str(args.verb)


def run(parser: argparse.ArgumentParser, given: Sequence[str], named: tuple[System, str],
        ask: Callable[[str], str] | None = None, namespace: argparse.Namespace | None = None,
        prog: str = "quotefinder", used: Callable[[set[str]], tuple[str, ...]] = lambda typed: (), at_least: int = 1
        ) -> int:
    """Parse `given` with `parser` (a verb's), check that the options go together, and do the verb's work; errors
    are prefixed with `prog`. `namespace` holds values (a project configuration's) that the
    options typed override; `used(dests typed)` says, for the summary, which of them were used and from where."""
    try:
        args = completed(parser.parse_args(given, namespace=namespace))
        typed = {action.dest for action, _, _ in _typed(given, parser)}
        args.grid = [*args.grid, *((name, text) for name, text in getattr(args, "config_grid", ())
                                   if name not in {named for named, _ in args.grid})]
        args.run = args.runs[0]
        if len(args.runs) < at_least:
            parser.error(f"give at least {at_least} runs (each its own system or pipeline, on the same questions)")
        if refusal := _resolve_grid(args, named[0]):
            parser.error(refusal)
        args.at_text = args.at
        if args.at is not None:
            try:
                args.at = point_of(args.at, named[0])
            except ValueError as error:
                parser.error(f"argument --at: {error}")
        if args.verb == "monitor" and (refusal := _monitor_refusal(args)):
            parser.error(refusal)
        if args.verb in ("compare", "monitor"):
            seen: dict[Path, Path] = {}
            for run in args.runs:
                if (twice := seen.setdefault(run.resolve(), run)) is not run:
                    parser.error(f"{run} is given twice (as {twice} too): give each run once")
        if args.at is None and (args.max_wrong is not None or args.min_correct is not None):
            parser.error("--max-wrong and --min-correct check a point: give it with --at H,A")
        if args.at is not None and not (args.verb in ("monitor", "drift") or _gated(args)
                                        or args.baseline is not None):
            parser.error(f"--at {args.at_text} names the point to check, but nothing is checked there: add "
                         "--max-wrong N, --min-correct N or --max-wrong-rate ALPHA (or --baseline RUN to compare "
                         "there); a gate that checks nothing never passes")
        if refusal := _refusal(args):
            parser.error(refusal)
    except SystemExit as done:  # --help, or a usage error argparse has printed
        return int(done.code or 0)
    chosen = (args.first, args.second)  # None: an axis of whole numbers or names, at the values each run recorded
    if args.first is None or args.second is None:  # (the first run's, for the checks of --at)
        try:
            args.first, args.second = grid_axes(RunRecord.require(args.run), (args.first, args.second))
        except QuoteFinderError as error:
            cli.report_error(prog, error)
            return EXIT_ERROR
        if refusal := _refusal(args):
            parser.print_usage(sys.stderr)
            print(f"{prog}: error: {refusal}", file=sys.stderr)
            return EXIT_ERROR
    settings = _settings(args, echoed(given, parser) + used(typed))
    options = SweepOptions(run=args.run, first=chosen[0], second=chosen[1], settings=settings,
                           questions=args.questions, allow_incomplete=args.allow_incomplete, jobs=args.jobs,
                           at=args.at, baseline=args.baseline, significance=args.significance, strict=args.strict,
                           use_index=not args.no_index)
    target = ReportDir(args.out or out_of(args), force=args.force)
    if options.use_index:  # one line when the user's cache may not be trusted; the sweep goes on without it
        why = next(filter(None, (cache_refused(run) for run in args.runs)), "")
        if why:
            print(f"{prog}: {why}", file=sys.stderr)
    with cli.sigterm_as_interrupt(), cli.collector_paused():
        try:
            verb = verb_of(args)
            if verb == "monitor":
                return _monitor(args, options, target, prog)
            if verb == "compare":
                return _systems(args, options, target, prog)
            return _sweep(args, options, target, ask, prog)
        except KeyboardInterrupt:  # Ctrl+C, or SIGTERM: the children are stopped, the staged files removed
            state = "was written whole before it stopped" if target.written else "is unchanged"
            print(f"{prog}: interrupted; the report in {target.path} {state}", file=sys.stderr)
            return EXIT_ERROR


def out_of(args: argparse.Namespace) -> Path:
    """The report directory without --out: reports/<run> (of a monitor, reports/<run>-monitor), or of several runs
    compared, `default_out`'s."""
    if args.verb == "monitor":
        return default_out(args.run).with_name(f"{args.run.name}-monitor")
    return default_out(*args.runs)


def _monitor_refusal(args: argparse.Namespace) -> str:
    """Why `quotefinder monitor` cannot watch with the options given ('' when it can)."""
    if len(args.runs) < 2:
        return ("give the run and its refreshes: quotefinder monitor RUN REFRESH [REFRESH...] (each refresh made "
                "with `quotefinder refresh RUN`)")
    if args.at is None or args.max_wrong_rate is None:
        return ("a monitor watches one cell against one rate: give --at H,A (the cell you ship) and --max-wrong-rate "
                "ALPHA")
    return ""


def _reported(work: Callable[[], int], prog: str) -> int:
    """`work()`'s exit status, or exit 2 with one line for an error of the input or of a file (a closed stdout
    is `main`'s to handle). A replay index still being written apart is waited for (`replay.index_written`), or
    stopped when the sweep is (Ctrl+C)."""
    try:
        status = work()
    except QuoteFinderError as error:
        cli.report_error(prog, error)
        return EXIT_ERROR
    except BrokenPipeError:
        raise
    except OSError as error:
        print(f"{prog}: cannot read or write {error.filename or 'a file'} ({error.strerror or error})",
              file=sys.stderr)
        return EXIT_ERROR
    except BaseException:
        index_written(stop=True)
        raise
    finally:
        index_written()
    return status


def _monitor(args: argparse.Namespace, options: SweepOptions, target: ReportDir, prog: str) -> int:
    """A run's refreshes watched at one cell: exit 1 at an alarm, 0 without, 2 when they cannot be compared."""
    def work() -> int:
        target.check()
        monitor = run_monitor(options, args.runs, args.max_wrong_rate, say=lambda line: print(line, file=sys.stderr))
        axes = run_system(RunRecord.require(args.run))[0].axes
        write_monitor_report(target, monitor, axes)
        console.show_monitor(monitor, axes, target.path)
        return EXIT_WORSE if monitor.alarmed else EXIT_OK

    return _reported(work, prog)


def _systems(args: argparse.Namespace, options: SweepOptions, target: ReportDir, prog: str) -> int:
    """Several runs: each swept with its own rule, compared on cross-validated scores, one report saying which to
    ship (exit 0 whatever it says; 2 when the runs cannot be compared)."""
    def work() -> int:
        target.check()
        sweeps, systems = run_systems(args.runs, options, say=lambda line: print(line, file=sys.stderr))
        write_systems_report(target, sweeps, systems, page=not (args.no_plots or args.no_html))
        console.show_systems(systems, target.path, page=not (args.no_plots or args.no_html))
        return EXIT_OK

    return _reported(work, prog)


def _sweep(args: argparse.Namespace, options: SweepOptions, target: ReportDir,
           ask: Callable[[str], str] | None, prog: str) -> int:
    def work() -> int:
        target.check()  # a directory it may not write is refused before anything is replayed
        drift = None
        if args.verb == "drift":
            result, drift = run_drift(options, None if args.drift in (None, True) else args.drift,
                                      args.max_wrong_rate)
            comparison = None
        else:
            result, comparison = run_sweep(options, args.verb == "review", ask)
        gate = result.gate(args.at, args.max_wrong, args.min_correct) if args.at and _gated(args) else None
        write_report(target, result, comparison, gate, plots=not args.no_plots,
                     page=not args.no_html, drift=drift, formats=args.figures)
        console.show_sweep(result, target.path, gate, comparison, page=not (args.no_plots or args.no_html))
        if drift is not None:
            console.show_drift(drift, result)
        worse = (gate is not None and not gate.holds) or (comparison is not None and comparison.worse) or (
            drift is not None and drift.failed)
        return EXIT_WORSE if worse else EXIT_OK

    return _reported(work, prog)

