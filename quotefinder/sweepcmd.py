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
from .errors import InputError, QuoteFinderError
from .report import console
from .report.directory import write_report
from .sweep.grid import Axis, parse_axis
from .sweep.session import SweepOptions, run_sweep

EXIT_OK, EXIT_WORSE, EXIT_ERROR = cli.EXIT_OK, cli.EXIT_WORSE, cli.EXIT_ERROR
DEFAULT_GRID = "0:1:0.05"


def _axis(text: str) -> Axis:
    try:
        return parse_axis(text)
    except InputError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _folds(text: str) -> int:
    folds = cli.count(text)
    if folds == 1:
        raise argparse.ArgumentTypeError("cross-validation needs at least 2 folds (0: none)")
    return folds


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sweep.py",
        description=__doc__ + "\n" + cli.CUTOFFS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "Every cell is exactly the pipeline's decision with those cutoffs: the qualified set's own\n"
            "cached compare response, the recipe's tie-breaks, and `probability >= cutoff` on both axes.\n\n"
            "the recommended point maximises score = correct + no-answer - C x wrong (--wrong-cost C;\n"
            "missed and unjudged score 0), averaged over repeats; among the cells with the best score it\n"
            "takes the one deepest inside that region (the most grid steps from any lower-scoring cell),\n"
            "then the one nearest the default cutoffs.\n\n"
            "exit status: 0 done (bounds hold, nothing worse than the baseline); 1 an --at bound is broken or\n"
            "something got worse than --baseline; 2 it cannot run (bad input, runs not comparable)\n\n"
            "examples:\n"
            "  python sweep.py runs/ten\n"
            "  python sweep.py runs/ten --has-answer 0.2:0.5:0.01 --answer 0.5:1:0.01 --no-plots\n"
            "  python sweep.py runs/ten --at 0.3,0.9 --max-wrong 0 --min-correct 6     # a CI gate\n"
            "  python sweep.py runs/new --baseline runs/old --at 0.3,0.9                # what got worse\n"
            "  python sweep.py runs/ten --folds 5                                       # cross-validated\n"
            "  python sweep.py runs/mine --review                                       # judge unjudged quotes"
        ),
    )
    parser.add_argument("run", type=Path, help="a run directory recorded by eval.py, e.g. runs/ten")
    parser.add_argument("--questions", type=Path, metavar="FILE",
                        help="judge with this question file (default: the one the run recorded, as it is now)")
    parser.add_argument("--has-answer", type=_axis, default=DEFAULT_GRID, metavar="START:STOP:STEP",
                        help=f"HAS_ANSWER_CUTOFF values, both ends included (default {DEFAULT_GRID})")
    parser.add_argument("--answer", type=_axis, default=DEFAULT_GRID, metavar="START:STOP:STEP",
                        help=f"ANSWER_CUTOFF values, both ends included (default {DEFAULT_GRID})")
    parser.add_argument("--out", type=Path, metavar="DIR", help="report directory (default: reports/<run name>)")
    parser.add_argument("--no-plots", action="store_true", help="write the tables and the summary only")
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
    sure.add_argument("--folds", type=_folds, default=0, metavar="K",
                      help="also choose the cutoffs on K-1 folds and score them on the held-out one (K >= 2)")
    sure.add_argument("--seed", type=cli.count, default=0, help="seed of the bootstrap and the folds (default 0)")
    check = parser.add_argument_group("checks for CI")
    check.add_argument("--at", type=cli.point, metavar="H,A", help="the pair of cutoffs the checks below are about")
    check.add_argument("--max-wrong", type=cli.count, metavar="N",
                       help="exit 1 if any repeat has more than N wrong quotes")
    check.add_argument("--min-correct", type=cli.count, metavar="N",
                       help="exit 1 if any repeat has fewer than N correct")
    check.add_argument("--baseline", type=Path, metavar="RUN",
                       help="compare with this earlier run at --at (default: the default cutoffs); exit 1 if any "
                       "question got worse")
    parser.add_argument("--review", action="store_true",
                        help="first ask, in the terminal, correct / wrong / skip for every unjudged quote on the "
                        "grid, saving each answer beside the question file")
    return parser


def main(argv: list[str] | None = None, ask: Callable[[str], str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.at is None and (args.max_wrong is not None or args.min_correct is not None):
            parser.error("--max-wrong and --min-correct check a point: give it with --at H,A")
    except SystemExit as done:  # --help, or a usage error argparse has printed
        return int(done.code or 0)
    options = SweepOptions(args.run, args.has_answer, args.answer, args.questions, args.wrong_cost,
                           args.allow_incomplete, args.jobs, args.bootstrap, args.folds, args.seed, args.at,
                           args.baseline)
    out_dir = args.out or Path("reports") / Path(args.run).resolve().name
    try:
        result, comparison = run_sweep(options, args.review, ask)
        gate = result.gate(args.at, args.max_wrong, args.min_correct) if args.at else None
        write_report(out_dir, result, comparison, gate, plots=not args.no_plots)
    except QuoteFinderError as error:
        cli.report_error("sweep.py", error)
        return EXIT_ERROR
    except OSError as error:
        print(f"sweep.py: cannot read or write {error.filename or 'a file'} ({error.strerror or error})",
              file=sys.stderr)
        return EXIT_ERROR
    console.show_sweep(result, out_dir, gate, comparison)
    worse = (gate is not None and not gate.holds) or (comparison is not None and comparison.worse)
    return EXIT_WORSE if worse else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
