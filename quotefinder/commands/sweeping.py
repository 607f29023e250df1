"""`python sweep.py RUN`: replay a recorded run offline over a grid of HAS_ANSWER_CUTOFF x ANSWER_CUTOFF
and write what the pipeline would have done at every cell: correct / wrong / missed / no-answer counts,
plots, and a summary with a recommended pair of cutoffs and how sure it is. `python sweep.py RUN_A RUN_B`:
compare systems recorded on the same questions, each at its own recommended cutoffs, and say which to ship.
Never opens a network connection; needs no key.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from .. import cli
from ..core import values
from ..core.errors import InputError, QuoteFinderError
from ..core.plugin import System
from ..core.registry import DEFAULT_SYSTEM, axis_spec, system
from ..core.storage import cache_refused
from ..record.rundir import RUN_FILE, RunRecord, recorded_system
from ..report import console
from ..report.directory import (
    MANIFEST,
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
from ..sweep.session import DEFAULT_GRID, SweepOptions, grid_axes, run_drift, run_monitor, run_sweep, run_systems
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
    """Whether `--at` has a bound to check: --max-wrong, --min-correct, or --max-wrong-rate (with --drift, that is the
    drift's own test of the rate now, not a gate)."""
    return args.max_wrong is not None or args.min_correct is not None or (
        args.max_wrong_rate is not None and args.drift is None)


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
    grid = args.first is not None and args.second is not None and not args.monitor  # (else checked once the
    # run names them; the monitor replays the cell --at alone)
    if grid and args.at is not None and checks and (cell_index(args.first.values, args.at[0]) is None
                                                    or cell_index(args.second.values, args.at[1]) is None):
        return (f"--at {args.at_text} is not a cell of the grid, so {' and '.join(checks)} cannot check it; choose "
                "a point on the grid's axes (--grid NAME=...; the quote finder's --has-answer and --answer)")
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


def point_of(text: str, under_test: System) -> tuple[float, float]:
    """'H,A' (`--at`): a point on the system's two axes, each value as the axis writes it (0.3; 5; deep), in the
    plane's numbers; `ValueError` saying how to write it."""
    first, second = under_test.axes
    example = ",".join(spec.shown(spec.default) for spec in under_test.axes)
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != 2:
        raise ValueError(f"{text!r}: write {first.title},{second.title}, e.g. {example}")
    found = []
    for spec, part in zip(under_test.axes, parts, strict=True):
        try:
            value: object = part if spec.kind == "choice" else int(part) if spec.kind == "count" else float(part)
            found.append(spec.read(value))
        except ValueError as error:
            raise ValueError(f"{text!r}: {spec.title} {part!r} is not a value of that axis ({error}); write "
                             f"{first.title},{second.title}, e.g. {example}") from None
    return found[0], found[1]


SWITCHES = {"-h", "--help", "--force", "--no-plots", "--no-html", "--allow-incomplete", "--strict", "--review",
            "--no-index"}


def system_of(argv: Sequence[str]) -> tuple[System, str]:
    """The system the first run named on the command line was recorded with (the quote finder when none is
    named, or it cannot be read), and words saying where it came from: for --help and --grid. An option's value
    (--baseline RUN) is not a run named."""
    value = False
    for arg in argv:
        if value or arg.startswith("-"):
            value = not value and arg.startswith("-") and arg not in SWITCHES and "=" not in arg
            continue
        if (Path(arg) / RUN_FILE).is_file():
            named = recorded_system(arg)  # only its name: the whole run.json is read (and checked) by the sweep
            if named is not None:
                return system(named), f"recorded in {arg}"
            break
    return system(DEFAULT_SYSTEM), "the default; name a run before --help for its own"


def axes_help(under_test: System, where: str) -> str:
    """The --help lines listing a system's axes, each with its default and what it does."""
    lines = [f"the axes of the {under_test.name} system ({where}),",
             f"each set with --grid NAME=START:STOP:STEP (a cutoff's default {DEFAULT_GRID}; an axis of whole numbers",
             "or names takes a list, --grid NAME=A,B,C, and defaults to the values the run recorded):"]
    for n, spec in enumerate(under_test.axes):
        also = f"; also {spec.flag}" if spec.flag else ""
        lines += [f"  {spec.name:<14}{spec.title}, default {spec.shown(spec.default)} "
                  f"({'rows' if n == 0 else 'columns'}{also})",
                  f"  {'':<14}{spec.words}"]
    return "\n".join(lines) + "\n"


def build_parser(argv: Sequence[str] = (), named: tuple[System, str] | None = None) -> argparse.ArgumentParser:
    under_test, where = named or system_of(argv)
    parser = argparse.ArgumentParser(
        prog="sweep.py",
        description=__doc__ + "\n" + under_test.help_text + "\n" + axes_help(under_test, where),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "Every cell is exactly the pipeline's decision with those cutoffs: the qualified set's own\n"
            "cached compare response, the recipe's tie-breaks, and `probability >= cutoff` on both axes.\n\n"
            "the recommendation: score = correct + no-answer - C x wrong (--wrong-cost C; missed and\n"
            "unjudged score 0), averaged over repeats. The cells whose score is within one paired standard\n"
            "error (per question) of the best cell's form the region of best score. The default cutoffs are\n"
            "kept when they lie in that region; otherwise the cell deepest inside it (grid steps to the\n"
            "nearest cell outside it, the grid's edge counting as outside), then the one nearest the default.\n\n"
            "the guarantee: --max-wrong-rate ALPHA certifies the cells where, with probability at least\n"
            "1 - DELTA, the wrong-answer rate is at most ALPHA: at most ALPHA of questions like these (with\n"
            "repeats, of answers served) get a wrong (or unjudged) quote, assuming the questions are a random\n"
            "sample of the ones you will serve (Learn-then-Test; see README). Not to be confused with wrong\n"
            "among quotes, the share of quotes that are wrong, which the summary gives with an interval.\n\n"
            "exit status: 0 done (bounds hold, nothing worse than the baseline); 1 an --at bound is broken,\n"
            "the --at cell is not certified, or the run is worse than --baseline; 2 it cannot run (bad input,\n"
            "runs not comparable, interrupted: Ctrl+C or SIGTERM leaves the report as it was, or whole);\n"
            f"{cli.BROKEN_PIPE_HELP}\n\n"
            "examples:\n"
            "  python sweep.py runs/ten\n"
            "  python sweep.py runs/ten --has-answer 0.2:0.5:0.01 --answer 0.5:1:0.01 --no-plots\n"
            "  python sweep.py runs/ten --at 0.3,0.9 --max-wrong 0 --min-correct 6     # a CI gate\n"
            "  python sweep.py runs/new --baseline runs/old --at 0.3,0.9                # what got worse\n"
            "  python sweep.py runs/ten --at 0.3,0.9 --max-wrong-rate 0.05             # certified, or exit 1\n"
            "  python sweep.py runs/mine --review                                       # label, judge quotes\n"
            "  python sweep.py runs/ten --grid has_answer=0.2:0.5:0.01 --grid answer=0.5:1:0.01\n"
            "  python sweep.py runs/ten runs/ten-terse-criteria --out reports/which  # which system to ship\n"
            "  python sweep.py runs/mine-2026-12 --drift --max-wrong-rate 0.05   # a refresh (eval.py --refresh)\n"
            "  python sweep.py --monitor runs/mine runs/mine-2026-11 runs/mine-2026-12 --at 0.3,0.9 \\\n"
            "      --max-wrong-rate 0.05                                              # watch the cell you ship"
        ),
    )
    parser.add_argument("runs", type=Path, nargs="+", metavar="RUN",
                        help="a run directory recorded by eval.py, e.g. runs/ten; several runs of one question set "
                        "(each its own system or pipeline) are compared, each at its own recommended cutoffs, and "
                        "the report says which to ship")
    parser.add_argument("--questions", type=Path, metavar="FILE",
                        help="judge with this question file (default: the one the run recorded, as it is now)")
    parser.add_argument("--has-answer", type=cli.axis, metavar="START:STOP:STEP", dest="first",
                        help=f"HAS_ANSWER_CUTOFF values, both ends included (default {DEFAULT_GRID})")
    parser.add_argument("--answer", type=cli.axis, metavar="START:STOP:STEP", dest="second",
                        help=f"ANSWER_CUTOFF values, both ends included (default {DEFAULT_GRID})")
    parser.add_argument("--grid", type=named_axis, action="append", default=[], metavar="NAME=START:STOP:STEP",
                        help="the values of one of the system's axes (listed above), both ends included; repeat it "
                        "for the other axis (the quote finder's --has-answer and --answer are the same thing)")
    parser.add_argument("--out", type=Path, metavar="DIR", help="report directory (default: reports/<run name>); "
                        f"only files its {MANIFEST} lists are ever replaced or removed, and a directory of files "
                        "without one is refused unless --force")
    parser.add_argument("--force", action="store_true",
                        help=f"write the report into --out DIR even where its files cannot be told from yours (no "
                        f"{MANIFEST}, or a file of a report's name it does not list): those files are replaced; "
                        "nothing else is touched")
    parser.add_argument("--no-plots", action="store_true",
                        help="write the tables and the summary only (no PNGs, no index.html): the fast path")
    parser.add_argument("--no-html", action="store_true", help="leave out index.html, the explorable page")
    parser.add_argument("--figures", type=figure_formats, default=("png",), metavar="FORMATS",
                        help="write each figure as png, svg or pdf, or several, e.g. png,svg (default png)")
    parser.add_argument("--wrong-cost", type=values.wrong_cost, default=2.0, metavar="C",
                        help="objective: correct + no-answer - C x wrong (default 2: a wrong quote costs more "
                        "than a missed one)")
    parser.add_argument("--allow-incomplete", action="store_true",
                        help="sweep an incomplete run, leaving out (and listing) the questions it cannot replay")
    parser.add_argument("--no-index", action="store_true",
                        help="replay every response from the cache, neither reading nor writing the run's replay "
                        "index (RUN/replay-index/: each question's curves, kept so that a repeated sweep need not "
                        "replay; derived, never evidence, safe to delete; the results are the same)")
    parser.add_argument("--jobs", type=values.jobs, default=min(os.cpu_count() or 1, 8), metavar="N",
                        help="processes that load the run (default: one per CPU, at most 8; 1 for a serial, "
                        "debuggable replay)")
    sure = parser.add_argument_group("how sure")
    sure.add_argument("--folds", type=values.folds, metavar="K",
                      help="test the tuning out of sample: 10 times, choose the cutoffs on K-1 folds and score "
                      "them on the held-out one against the default; the decision moves only when that gain is "
                      "shown (default 5, at most one per question; 0: none, so the default is kept)")
    sure.add_argument("--level", type=values.open_unit("--level"), default=LEVEL, metavar="P",
                      help=f"one-sided level of that test (default {LEVEL:g})")
    sure.add_argument("--answerable-share", type=values.open_unit("--answerable-share"), metavar="S",
                      help="weight the questions so that answerable ones make up S of the total (a production "
                      "mix, e.g. 0.7) in the score, the rates and the guarantee (which then needs every question "
                      "labelled)")
    sure.add_argument("--max-wrong-rate", type=values.open_unit("--max-wrong-rate"), metavar="ALPHA",
                      help="certify the cells whose wrong-answer rate (the share of questions that get a "
                      "wrong quote; with repeats, of answers served) is at most ALPHA with probability at least "
                      "1 - DELTA (adds `certified` to grid.csv; with --at, exit 1 unless that cell is certified); "
                      "with --max-wrong-rate the rule chooses among the certified cells, and a default that is not "
                      "certified moves to the rule's certified cell")
    sure.add_argument("--delta", type=values.open_unit("--delta"), default=DELTA, metavar="DELTA",
                      help=f"how often the guarantee may fail (default {DELTA:g}: it holds with probability 90%%)")
    sure.add_argument("--seed", type=values.seed, default=0, help="seed of the folds (default 0)")
    check = parser.add_argument_group("checks for CI")
    check.add_argument("--at", metavar="H,A", help="the point the checks below are about: a value of each axis, "
                       "e.g. 0.3,0.9 (the quote finder's HAS_ANSWER_CUTOFF,ANSWER_CUTOFF) or 5,deep")
    check.add_argument("--max-wrong", type=values.count, metavar="N",
                       help="exit 1 if any repeat has more than N wrong quotes")
    check.add_argument("--min-correct", type=values.count, metavar="N",
                       help="exit 1 if any repeat has fewer than N correct")
    check.add_argument("--baseline", type=Path, metavar="RUN",
                       help="compare with this earlier run at --at (default: the default cutoffs); exit 1 when more "
                       "questions got worse than fixed, beyond what noise explains (a one-sided sign test)")
    check.add_argument("--significance", type=values.open_unit("--significance"), default=SIGNIFICANCE, metavar="P",
                       help=f"the sign test's level for --baseline, and with several runs the level at which one "
                       f"system is called better than another (default {SIGNIFICANCE:g})")
    check.add_argument("--strict", action="store_true",
                       help="with --baseline, exit 1 if any question got worse, however noisy")
    watch = parser.add_argument_group("drift (is the evidence still true? refreshes from eval.py --refresh)")
    watch.add_argument("--drift", nargs="?", const=True, type=Path, metavar="RUN",
                       help="RUN (the one run given) is a refresh: compare it with the run it refreshes (named in its "
                       "run.json, or RUN here): the evidence stage by stage, decisions at the shipped cell (--at, else "
                       "the original's recommended cell) with the sign test, and the wrong-answer rate there now; "
                       "writes the summary's \"Drift\" section, drift.csv and drift-stages.csv; exit 1 when decisions "
                       "got worse beyond noise (--significance) or, with --max-wrong-rate ALPHA, the rate is above "
                       "ALPHA with confidence 1 - DELTA")
    watch.add_argument("--monitor", action="store_true",
                       help="RUN REFRESH1 REFRESH2 ...: watch the shipped cell (--at, required) over RUN's refreshes "
                       "in the order they were recorded, with an anytime-valid confidence sequence for its "
                       "wrong-answer rate; exit 1 the first time its lower bound passes --max-wrong-rate ALPHA "
                       "(required): checking after every refresh, forever, keeps the false-alarm chance at most DELTA")
    parser.add_argument("--review", action="store_true",
                        help="first ask, in the terminal, for what the grid lacks: the label (answer / no-answer / "
                        "skip) of every question quoted on the grid that has no `expect`, and a verdict (correct / "
                        "wrong / skip) on every unjudged quote; each answer is saved beside the question file as "
                        "it is given, and the sweep is judged with them")
    return parser


def _resolve_grid(args: argparse.Namespace, under_test: System) -> str:
    """Fill `args.first` and `args.second` (the grid's rows and columns) from --grid NAME=... and the older
    flags (`AxisSpec.flag`), the system's default grid where neither is given (`System.default_grid`; None
    for a system without one: what the run recorded, `session.grid_axes`); why not ('') when an axis is unknown,
    given twice, or given values it does not take."""
    axes: list[Axis | None] = [args.first, args.second]
    given = [spec.flag or f"--grid {spec.name}=..." for spec in under_test.axes]
    for flag, axis in (("--has-answer", args.first), ("--answer", args.second)):
        if axis is not None and flag not in given:
            return f"{flag}: the {under_test.name} system has no such axis; its axes are: " \
                f"{', '.join(spec.name for spec in under_test.axes)} (--grid NAME=...)"
    for name, text in args.grid:
        try:
            spec = axis_spec(under_test, name)
            index = under_test.axes.index(spec)
        except KeyError as unknown:
            return f"--grid {name}=...: {unknown.args[0]}"
        if axes[index] is not None:
            return f"the {name} axis is given twice (--grid {name}=... and {given[index]}): give it once"
        try:
            axes[index] = parse_axis(text, f"--grid {name}", spec)
        except InputError as error:
            return str(error)
        given[index] = f"--grid {name}=..."
    grid = under_test.default_grid  # None: each axis's default is what the run recorded
    args.first, args.second = (axis if axis is not None or grid is None else cli.axis(grid) for axis in axes)
    return ""


SINGLE_RUN_ONLY = (("baseline", "--baseline"), ("review", "--review"), ("at", "--at"), ("strict", "--strict"),
                   ("max_wrong", "--max-wrong"), ("min_correct", "--min-correct"))


@cli.quiet_on_a_closed_stdout  # the report is written before anything is printed: a closed pipe loses nothing
@cli.guarded("sweep.py")
def main(argv: list[str] | None = None, ask: Callable[[str], str] | None = None) -> int:
    """`python sweep.py ...`: every option of every sweeping verb in one parser, as the project has always been
    run; routed to the verb its options name (`verb_of`)."""
    given = sys.argv[1:] if argv is None else argv
    named = system_of(given)
    parser = build_parser(given, named)
    return run(parser, given, named, ask)


def completed(args: argparse.Namespace) -> argparse.Namespace:
    """`args` with every option of `sweep.py` that a verb's parser lacks at its default (a verb has only its own
    options; the work below reads them all)."""
    for action in build_parser((), (system(DEFAULT_SYSTEM), ""))._actions:
        if action.dest != "help" and not hasattr(args, action.dest):
            setattr(args, action.dest, action.default)
    return args


def verb_of(args: argparse.Namespace) -> str:
    """The verb a parsed command line is: monitor, drift, compare (several runs), review or sweep."""
    if args.monitor:
        return "monitor"
    if args.drift is not None:
        return "drift"
    if len(args.runs) > 1:
        return "compare"
    return "review" if args.review else "sweep"


def run(parser: argparse.ArgumentParser, given: Sequence[str], named: tuple[System, str],
        ask: Callable[[str], str] | None = None, namespace: argparse.Namespace | None = None,
        prog: str = "sweep.py", used: Callable[[set[str]], tuple[str, ...]] = lambda typed: (), at_least: int = 1
        ) -> int:
    """Parse `given` with `parser` (a verb's, or sweep.py's), check that the options go together, and do the
    verb's work; errors are prefixed with `prog`. `namespace` holds values (a project configuration's) that the
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
        if args.monitor or args.drift is not None:
            if refusal := _watch_refusal(args):
                parser.error(refusal)
        elif len(args.runs) > 1:
            mixed = [flag for name, flag in SINGLE_RUN_ONLY if getattr(args, name) is not None
                     and getattr(args, name) is not False]
            if mixed:
                parser.error(f"{', '.join(mixed)} {'check' if len(mixed) > 1 else 'checks'} one run; with several runs "
                             "sweep.py compares systems (each at its own recommended cutoffs): sweep a run alone for "
                             f"{'those checks' if len(mixed) > 1 else 'that'}")
            seen: dict[Path, Path] = {}
            for run in args.runs:
                if (twice := seen.setdefault(run.resolve(), run)) is not run:
                    parser.error(f"{run} is given twice (as {twice} too): compare different runs")
        if args.at is None and (args.max_wrong is not None or args.min_correct is not None):
            parser.error("--max-wrong and --min-correct check a point: give it with --at H,A")
        if args.at is not None and not (args.monitor or args.drift is not None or _gated(args)
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
    return default_out(args.run).with_name(f"{args.run.name}-monitor") if args.monitor else default_out(*args.runs)


def _watch_refusal(args: argparse.Namespace) -> str:
    """Why --drift or --monitor cannot go with the other options given ('' when it can)."""
    if args.monitor and args.drift is not None:
        return "--drift compares one refresh with its run, --monitor watches a run's refreshes: give one of them"
    if args.drift is not None:
        if len(args.runs) > 1:
            return ("--drift compares one refresh with the run it refreshes: give the refresh alone (--drift RUN "
                    "names the original when its run.json does not)")
        if args.baseline is not None:
            return "--drift is the comparison with the original run: leave out --baseline"
        if args.review:
            return ("--drift compares the refresh as judged now: review its quotes first (sweep.py NEW --review), "
                    "then run --drift without --review")
        return ""
    if len(args.runs) < 2:
        return "--monitor RUN REFRESH1 REFRESH2 ...: give the run and its refreshes (eval.py --refresh RUN)"
    if args.at is None or args.max_wrong_rate is None:
        return ("--monitor watches one cell against one rate: give --at H,A (the cell you ship) and --max-wrong-rate "
                "ALPHA")
    mixed = [flag for name, flag in SINGLE_RUN_ONLY if name != "at" and getattr(args, name) not in (None, False)]
    if mixed:
        return f"--monitor takes none of {', '.join(mixed)}"
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
        if args.drift is not None:
            result, drift = run_drift(options, None if args.drift is True else args.drift, args.max_wrong_rate)
            comparison = None
        else:
            result, comparison = run_sweep(options, args.review, ask)
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


if __name__ == "__main__":
    sys.exit(main())
