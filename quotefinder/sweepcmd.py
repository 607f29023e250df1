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
from .report.directory import default_out, write_report
from .report.painter import Painter
from .sweep.analysis import Settings
from .sweep.compare import SIGNIFICANCE
from .sweep.guarantee import DELTA
from .sweep.session import SweepOptions, run_sweep

EXIT_OK, EXIT_WORSE, EXIT_ERROR = cli.EXIT_OK, cli.EXIT_WORSE, cli.EXIT_ERROR
DEFAULT_GRID = "0:1:0.05"


def _settings(args: argparse.Namespace) -> Settings:
    return Settings(wrong_cost=args.wrong_cost, resamples=args.bootstrap, folds=args.folds, seed=args.seed,
                    max_wrong_rate=args.max_wrong_rate, delta=args.delta, answerable_share=args.answerable_share)


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
            "1 - DELTA, at most ALPHA of questions like these get a wrong (or unjudged) quote, assuming the\n"
            "questions are a random sample of the ones you will serve (Learn-then-Test; see README).\n\n"
            "exit status: 0 done (bounds hold, nothing worse than the baseline); 1 an --at bound is broken,\n"
            "the --at cell is not certified, or the run is worse than --baseline; 2 it cannot run (bad input,\n"
            "runs not comparable)\n\n"
            "examples:\n"
            "  python sweep.py runs/ten\n"
            "  python sweep.py runs/ten --has-answer 0.2:0.5:0.01 --answer 0.5:1:0.01 --no-plots\n"
            "  python sweep.py runs/ten --at 0.3,0.9 --max-wrong 0 --min-correct 6     # a CI gate\n"
            "  python sweep.py runs/new --baseline runs/old --at 0.3,0.9                # what got worse\n"
            "  python sweep.py runs/ten --at 0.3,0.9 --max-wrong-rate 0.05             # certified, or exit 1\n"
            "  python sweep.py runs/mine --review                                       # judge unjudged quotes"
        ),
    )
    parser.add_argument("run", type=Path, help="a run directory recorded by eval.py, e.g. runs/ten")
    parser.add_argument("--questions", type=Path, metavar="FILE",
                        help="judge with this question file (default: the one the run recorded, as it is now)")
    parser.add_argument("--has-answer", type=cli.axis, default=DEFAULT_GRID, metavar="START:STOP:STEP",
                        help=f"HAS_ANSWER_CUTOFF values, both ends included (default {DEFAULT_GRID})")
    parser.add_argument("--answer", type=cli.axis, default=DEFAULT_GRID, metavar="START:STOP:STEP",
                        help=f"ANSWER_CUTOFF values, both ends included (default {DEFAULT_GRID})")
    parser.add_argument("--out", type=Path, metavar="DIR", help="report directory (default: reports/<run name>)")
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
                      "mix, e.g. 0.7) in the score and the rates; the guarantee stays on the questions as sampled")
    sure.add_argument("--max-wrong-rate", type=cli.open_unit("--max-wrong-rate"), metavar="ALPHA",
                      help="certify the cells whose wrong-quote rate is at most ALPHA with probability at least "
                      "1 - DELTA (adds `certified` to grid.csv; with --at, exit 1 unless that cell is certified)")
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
    options = SweepOptions(run=args.run, has_answer=args.has_answer, answer=args.answer, settings=_settings(args),
                           questions=args.questions, allow_incomplete=args.allow_incomplete, jobs=args.jobs,
                           at=args.at, baseline=args.baseline, significance=args.significance, strict=args.strict)
    out_dir = args.out or default_out(args.run)
    painter = None if args.no_plots else Painter()  # starts drawing's imports while the run is replayed
    try:
        result, comparison = run_sweep(options, args.review, ask)
        gate = result.gate(args.at, args.max_wrong, args.min_correct) if args.at else None
        write_report(out_dir, result, comparison, gate, plots=not args.no_plots, painter=painter,
                     page=not args.no_html)
        console.show_sweep(result, out_dir, gate, comparison)
    except QuoteFinderError as error:
        cli.report_error("sweep.py", error)
        return EXIT_ERROR
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
