"""`python sweep.py RUN`: replay a recorded run offline over a grid of HAS_ANSWER_CUTOFF x ANSWER_CUTOFF
and write what the pipeline would have done at every cell: correct / wrong / missed / no-answer counts,
plots, and a summary with a recommended pair of cutoffs and how sure it is. Never opens a network
connection; needs no key.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from . import cli
from .errors import QuoteFinderError
from .report import console
from .report.directory import MANIFEST, ReportDir, default_out, write_report
from .report.painter import Painter
from .sweep.analysis import Settings
from .sweep.compare import SIGNIFICANCE
from .sweep.grid import cell_index
from .sweep.guarantee import DELTA
from .sweep.session import SweepOptions, run_sweep

EXIT_OK, EXIT_WORSE, EXIT_ERROR = cli.EXIT_OK, cli.EXIT_WORSE, cli.EXIT_ERROR
DEFAULT_GRID = "0:1:0.05"


def _settings(args: argparse.Namespace) -> Settings:
    return Settings(wrong_cost=args.wrong_cost, resamples=args.bootstrap, folds=args.folds, seed=args.seed,
                    max_wrong_rate=args.max_wrong_rate, delta=args.delta, answerable_share=args.answerable_share)


def _refusal(args: argparse.Namespace) -> str:
    """Why these options cannot go together ('' when they can), said before anything is replayed."""
    if args.strict and args.baseline is None:
        return "--strict makes the comparison with a baseline stricter: give the earlier run with --baseline RUN"
    out = (args.out or default_out(args.run)).resolve()
    for run in (args.run, args.baseline):
        if run is not None and out.is_relative_to(run.resolve()):
            where = f"--out {args.out}" if args.out else f"the default report directory {default_out(args.run)}"
            return (f"{where} is inside the run directory {run}: a report written there would mix with the run's "
                    "evidence; choose a directory outside it with --out DIR")
    # A check is about one cell of the grid; the comparison with --baseline alone may be at any point.
    checks = [name for name, value in (("--max-wrong", args.max_wrong), ("--min-correct", args.min_correct),
                                       ("--max-wrong-rate", args.max_wrong_rate)) if value is not None]
    if args.at is not None and checks and (cell_index(args.has_answer.values, args.at[0]) is None
                                           or cell_index(args.answer.values, args.at[1]) is None):
        return (f"--at {args.at[0]:g},{args.at[1]:g} is not a cell of the grid, so {' and '.join(checks)} cannot "
                "check it; choose a point on the --has-answer and --answer axes")
    return ""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sweep.py",
        description=__doc__ + "\n" + cli.CUTOFFS_HELP,
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
            "  python sweep.py runs/mine --review                                       # label, judge quotes"
        ),
    )
    parser.add_argument("run", type=Path, help="a run directory recorded by eval.py, e.g. runs/ten")
    parser.add_argument("--questions", type=Path, metavar="FILE",
                        help="judge with this question file (default: the one the run recorded, as it is now)")
    parser.add_argument("--has-answer", type=cli.axis, default=DEFAULT_GRID, metavar="START:STOP:STEP",
                        help=f"HAS_ANSWER_CUTOFF values, both ends included (default {DEFAULT_GRID})")
    parser.add_argument("--answer", type=cli.axis, default=DEFAULT_GRID, metavar="START:STOP:STEP",
                        help=f"ANSWER_CUTOFF values, both ends included (default {DEFAULT_GRID})")
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
    parser.add_argument("--wrong-cost", type=cli.bounded(float, 0, "a finite number >= 0"), default=2.0, metavar="C",
                        help="objective: correct + no-answer - C x wrong (default 2: a wrong quote costs more "
                        "than a missed one)")
    parser.add_argument("--allow-incomplete", action="store_true",
                        help="sweep an incomplete run, leaving out (and listing) the questions it cannot replay")
    parser.add_argument("--jobs", type=cli.positive_int, default=min(os.cpu_count() or 1, 8), metavar="N",
                        help="processes that load the run (default: one per CPU, at most 8; 1 for a serial, "
                        "debuggable replay)")
    sure = parser.add_argument_group("how sure")
    sure.add_argument("--bootstrap", type=cli.count, metavar="N",
                      help="resamples of the questions for the stability of the choice (default 1000, fewer for "
                      "very large runs; 0: none)")
    sure.add_argument("--folds", type=cli.folds, metavar="K",
                      help="cross-validate: choose the cutoffs on K-1 folds and score them on the held-out one, "
                      "for the gain over the default (default 5, at most one per question; 0: none)")
    sure.add_argument("--answerable-share", type=cli.open_unit("--answerable-share"), metavar="S",
                      help="weight the questions so that answerable ones make up S of the total (a production "
                      "mix, e.g. 0.7) in the score, the rates and the guarantee (which then needs every question "
                      "labelled)")
    sure.add_argument("--max-wrong-rate", type=cli.open_unit("--max-wrong-rate"), metavar="ALPHA",
                      help="certify the cells whose wrong-answer rate (the share of questions that get a "
                      "wrong quote; with repeats, of answers served) is at most ALPHA with probability at least "
                      "1 - DELTA (adds `certified` to grid.csv; with --at, exit 1 unless that cell is certified); "
                      "with --max-wrong-rate the recommended cell is chosen among the certified cells")
    sure.add_argument("--delta", type=cli.open_unit("--delta"), default=DELTA, metavar="DELTA",
                      help=f"how often the guarantee may fail (default {DELTA:g}: it holds with probability 90%%)")
    sure.add_argument("--seed", type=cli.count, default=0, help="seed of the bootstrap and the folds (default 0)")
    check = parser.add_argument_group("checks for CI")
    check.add_argument("--at", type=cli.point, metavar="H,A", help="the pair of cutoffs the checks below are about")
    check.add_argument("--max-wrong", type=cli.count, metavar="N",
                       help="exit 1 if any repeat has more than N wrong quotes")
    check.add_argument("--min-correct", type=cli.count, metavar="N",
                       help="exit 1 if any repeat has fewer than N correct")
    check.add_argument("--baseline", type=Path, metavar="RUN",
                       help="compare with this earlier run at --at (default: the default cutoffs); exit 1 when more "
                       "questions got worse than fixed, beyond what noise explains (a one-sided sign test)")
    check.add_argument("--significance", type=cli.open_unit("--significance"), default=SIGNIFICANCE, metavar="P",
                       help=f"the sign test's level for --baseline (default {SIGNIFICANCE:g})")
    check.add_argument("--strict", action="store_true",
                       help="with --baseline, exit 1 if any question got worse, however noisy")
    parser.add_argument("--review", action="store_true",
                        help="first ask, in the terminal, for what the grid lacks: the label (answer / no-answer / "
                        "skip) of every question quoted on the grid that has no `expect`, and a verdict (correct / "
                        "wrong / skip) on every unjudged quote; each answer is saved beside the question file as "
                        "it is given, and the sweep is judged with them")
    return parser


@cli.quiet_on_a_closed_stdout  # the report is written before anything is printed: a closed pipe loses nothing
def main(argv: list[str] | None = None, ask: Callable[[str], str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.at is None and (args.max_wrong is not None or args.min_correct is not None):
            parser.error("--max-wrong and --min-correct check a point: give it with --at H,A")
        if refusal := _refusal(args):
            parser.error(refusal)
    except SystemExit as done:  # --help, or a usage error argparse has printed
        return int(done.code or 0)
    options = SweepOptions(run=args.run, has_answer=args.has_answer, answer=args.answer, settings=_settings(args),
                           questions=args.questions, allow_incomplete=args.allow_incomplete, jobs=args.jobs,
                           at=args.at, baseline=args.baseline, significance=args.significance, strict=args.strict)
    target = ReportDir(args.out or default_out(args.run), force=args.force)
    with cli.sigterm_as_interrupt():
        try:
            return _sweep(args, options, target, ask)
        except KeyboardInterrupt:  # Ctrl+C, or SIGTERM: the children are stopped, the staged files removed
            state = "was written whole before it stopped" if target.written else "is unchanged"
            print(f"sweep.py: interrupted; the report in {target.path} {state}", file=sys.stderr)
            return EXIT_ERROR


def _sweep(args: argparse.Namespace, options: SweepOptions, target: ReportDir,
           ask: Callable[[str], str] | None) -> int:
    painter = None
    try:
        target.check()  # a directory it may not write is refused before anything is replayed
        painter = None if args.no_plots else Painter()  # starts drawing's imports while the run is replayed
        result, comparison = run_sweep(options, args.review, ask)
        gate = result.gate(args.at, args.max_wrong, args.min_correct) if args.at else None
        write_report(target, result, comparison, gate, plots=not args.no_plots, painter=painter,
                     page=not args.no_html)
        console.show_sweep(result, target.path, gate, comparison, page=not (args.no_plots or args.no_html))
    except QuoteFinderError as error:
        cli.report_error("sweep.py", error)
        return EXIT_ERROR
    except BrokenPipeError:
        raise  # not a file: stdout's reader went away, and main stops quietly
    except OSError as error:
        print(f"sweep.py: cannot read or write {error.filename or 'a file'} ({error.strerror or error})",
              file=sys.stderr)
        return EXIT_ERROR
    finally:
        if painter is not None:
            painter.close()
    worse = (gate is not None and not gate.holds) or (comparison is not None and comparison.worse)
    return EXIT_WORSE if worse else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
