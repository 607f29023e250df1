"""`python sweep.py RUN`: replay a recorded run offline over a grid of HAS_ANSWER_CUTOFF x ANSWER_CUTOFF
and write what the pipeline would have done at every cell: correct / wrong / missed / no-answer counts,
plots, and a summary with a recommended pair of cutoffs and how sure it is. Never opens a network
connection; needs no key.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

import pandas as pd

from .analysis import Sweep, analyse, default_cutoffs
from .compare import Comparison, compare, require_comparable
from .decision import passes
from .errors import InputError, QuoteFinderError
from .grid import Axis, at_point, parse_axis
from .questions import OUTCOMES, Outcome
from .replay import Replayed, open_run, replay_run
from .report import (
    comparison_frame,
    csv_bytes,
    grid_frame,
    label,
    questions_frame,
    summary_markdown,
    write_files,
)
from .textsafe import terminal
from .verdicts import load_verdicts, review, verdicts_path, with_verdicts

EXIT_OK, EXIT_WORSE, EXIT_ERROR = 0, 1, 2
DEFAULT_GRID = "0:1:0.05"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sweep.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "Every cell is exactly the pipeline's decision with those cutoffs: the qualified set's own\n"
            "cached compare response, the recipe's tie-breaks, and `probability >= cutoff` on both axes.\n\n"
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
    parser.add_argument("--has-answer", default=DEFAULT_GRID, metavar="START:STOP:STEP",
                        help=f"HAS_ANSWER_CUTOFF values, both ends included (default {DEFAULT_GRID})")
    parser.add_argument("--answer", default=DEFAULT_GRID, metavar="START:STOP:STEP",
                        help=f"ANSWER_CUTOFF values, both ends included (default {DEFAULT_GRID})")
    parser.add_argument("--out", type=Path, metavar="DIR", help="report directory (default: reports/<run name>)")
    parser.add_argument("--no-plots", action="store_true", help="write the tables and the summary only")
    parser.add_argument("--wrong-cost", type=float, default=2.0, metavar="C",
                        help="objective: correct + no-answer - C x wrong (default 2: a wrong quote costs more "
                        "than a missed one)")
    parser.add_argument("--allow-incomplete", action="store_true",
                        help="sweep an incomplete run, leaving out (and listing) the questions it cannot replay")
    parser.add_argument("--jobs", type=int, default=min(os.cpu_count() or 1, 8), metavar="N",
                        help="processes that load the run (default: one per CPU, at most 8; 1 for a serial, "
                        "debuggable replay)")
    sure = parser.add_argument_group("how sure")
    sure.add_argument("--bootstrap", type=int, metavar="N",
                      help="resamples of the questions for the stability of the choice (default 1000, fewer for "
                      "very large runs; 0: none)")
    sure.add_argument("--folds", type=int, default=0, metavar="K",
                      help="also choose the cutoffs on K-1 folds and score them on the held-out one (K >= 2)")
    sure.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and the folds (default 0)")
    check = parser.add_argument_group("checks for CI")
    check.add_argument("--at", metavar="H,A", help="the pair of cutoffs the checks below are about")
    check.add_argument("--max-wrong", type=int, metavar="N", help="exit 1 if any repeat has more than N wrong quotes")
    check.add_argument("--min-correct", type=int, metavar="N", help="exit 1 if any repeat has fewer than N correct")
    check.add_argument("--baseline", type=Path, metavar="RUN",
                       help="compare with this earlier run at --at (default: the default cutoffs); exit 1 if any "
                       "question got worse")
    parser.add_argument("--review", action="store_true",
                        help="first ask, in the terminal, correct / wrong / skip for every unjudged quote on the "
                        "grid, saving each answer beside the question file")
    return parser


def parse_point(text: str) -> tuple[float, float]:
    try:
        h, a = (float(part) for part in text.split(","))
    except ValueError:
        raise InputError(f"--at {text!r}: write HAS_ANSWER_CUTOFF,ANSWER_CUTOFF, e.g. --at 0.3,0.6") from None
    if not (0 <= h <= 1 and 0 <= a <= 1):
        raise InputError(f"--at {text!r}: both cutoffs must be in [0, 1]")
    return h, a


def gate(result: Sweep, at: tuple[float, float], max_wrong: int | None, min_correct: int | None) -> tuple[bool, str]:
    """Check the bounds at one point in every repeat (the worst one decides); (holds, why in words)."""
    runs = [at_point(run, *at) for run in result.replayed.runs]
    wrong = max(sum(1 for _, o in judged if o is Outcome.WRONG) for judged in runs)
    correct = min(sum(1 for _, o in judged if o is Outcome.CORRECT) for judged in runs)
    checks = []
    if max_wrong is not None:
        checks.append((wrong <= max_wrong, f"wrong {wrong} <= {max_wrong}"))
    if min_correct is not None:
        checks.append((correct >= min_correct, f"correct {correct} >= {min_correct}"))
    holds = all(ok for ok, _ in checks)
    words = ", ".join(f"{text} {'holds' if ok else 'BROKEN'}" for ok, text in checks) or "no bounds given"
    worst = " (the worst of the repeats)" if len(runs) > 1 else ""
    return holds, f"{'PASS' if holds else 'FAIL'} at ({at[0]:g}, {at[1]:g}){worst}: {words}"


def plot_all(result: Sweep, grid: pd.DataFrame, out_dir: Path, comparison: Comparison | None) -> list[tuple[str, str]]:
    """Write the PNGs; return (title, file name) for the summary."""
    from . import plots  # matplotlib takes a quarter of a second to import: only when plotting

    synthetic = " (synthetic)" if result.replayed.synthetic else ""
    rec, default = result.recommended, result.default
    marks = {"default": (default.h, default.a), "recommended": (rec.h, rec.a)}
    written = []

    def add(title: str, name: str) -> None:
        written.append((f"{title}{synthetic}", name))

    mean = " (mean over repeats)" if result.repeats > 1 else ""
    for outcome in ("correct", "wrong", "missed", "no_answer", "unjudged"):
        if outcome == "unjudged" and not grid["unjudged"].any():
            continue
        name = f"heatmap-{outcome.replace('_', '-')}.png"
        add(f"{label(Outcome(outcome)).capitalize()} questions per cell{mean}", name)
        plots.heatmap(grid, outcome, out_dir / name, marks, written[-1][0], f"{label(Outcome(outcome))} questions")
    if result.stability is not None:
        add(f"Share of {result.stability.resamples} bootstrap resamples recommending each cell",
            "heatmap-bootstrap.png")
        plots.heatmap(grid, "bootstrap_share", out_dir / "heatmap-bootstrap.png", marks, written[-1][0],
                      "share of resamples")
    if comparison is not None:
        frame = grid[["has_answer_cutoff", "answer_cutoff"]].assign(
            score_change=comparison.score_difference.ravel())
        add(f"Score change against {comparison.baseline.run_dir.name} per cell", "heatmap-score-change.png")
        plots.heatmap(frame, "score_change", out_dir / "heatmap-score-change.png", marks, written[-1][0],
                      "score now minus baseline")
    along_a = grid[grid["has_answer_cutoff"] == rec.h]
    add(f"Outcomes vs ANSWER_CUTOFF at HAS_ANSWER_CUTOFF {rec.h:g}", "along-answer-cutoff.png")
    plots.counts_along(along_a, "answer_cutoff", out_dir / "along-answer-cutoff.png", written[-1][0], rec.a)
    along_h = grid[grid["answer_cutoff"] == rec.a]
    add(f"Outcomes vs HAS_ANSWER_CUTOFF at ANSWER_CUTOFF {rec.a:g}", "along-has-answer-cutoff.png")
    plots.counts_along(along_h, "has_answer_cutoff", out_dir / "along-has-answer-cutoff.png", written[-1][0], rec.h)
    add(f"Where each question's outcome flips, at HAS_ANSWER_CUTOFF {rec.h:g}", "flips.png")
    plots.flips(flip_frame(result), out_dir / "flips.png", written[-1][0], rec.a)
    return written


def flip_frame(result: Sweep) -> pd.DataFrame:
    """Per question, at the recommended HAS_ANSWER_CUTOFF: where along ANSWER_CUTOFF its outcome flips."""
    rows = []
    for curve in result.curves:
        index = curve.set_index(result.recommended.h)
        top = curve.tops[index] if index < len(curve.tops) else None
        rows.append({
            "id": curve.question.id,
            "flip": top.answers if top else float("nan"),
            "quoted": OUTCOMES[curve.codes[index]].value if top else "",
            "unquoted": OUTCOMES[curve.unquoted].value,
        })
    return pd.DataFrame(rows, columns=["id", "flip", "quoted", "unquoted"])


def unjudged_on_grid(result: Sweep) -> list:
    """Every (question, top candidate) quoted at some cell of the grid and judged by nobody yet."""
    lowest = float(result.a_axis.values.min())
    found, seen = [], set()
    for run in result.replayed.runs:
        for question, trace in run:
            for _, top in trace.tops:
                if top is None or not passes(top.answers, lowest):
                    continue  # not quoted anywhere on the grid
                if (question.question, top.candidate.sentence) in seen:
                    continue
                seen.add((question.question, top.candidate.sentence))
                if question.judge(top.candidate.sentence) is Outcome.UNJUDGED:
                    found.append((question, top))
    return found


def rejudge(replayed: Replayed) -> Replayed:
    """The same traces judged with the verdicts now on disk (after a review)."""
    questions = with_verdicts(replayed.questions, load_verdicts(verdicts_path(replayed.questions.path)))
    by_text = questions.by_text()
    runs = [[(by_text[q.question], trace) for q, trace in run] for run in replayed.runs]
    return Replayed(replayed.run_dir, replayed.record, questions, runs, replayed.excluded, replayed.unjudged_in_run)


def run(args: argparse.Namespace) -> int:
    h_axis: Axis = parse_axis(args.has_answer, "--has-answer")
    a_axis: Axis = parse_axis(args.answer, "--answer")
    at = parse_point(args.at) if args.at else None
    if at is None and (args.max_wrong is not None or args.min_correct is not None):
        raise InputError("--max-wrong and --min-correct check a point: give it with --at H,A")
    if not (math.isfinite(args.wrong_cost) and args.wrong_cost >= 0):
        raise InputError(f"--wrong-cost {args.wrong_cost}: must be a finite number >= 0")
    if args.seed < 0:
        raise InputError(f"--seed {args.seed}: must be 0 or more")
    if args.bootstrap is not None and args.bootstrap < 0:
        raise InputError(f"--bootstrap {args.bootstrap}: must be 0 or more")
    if args.folds == 1 or args.folds < 0:
        raise InputError(f"--folds {args.folds}: cross-validation needs at least 2 folds")
    default = default_cutoffs(open_run(args.run))
    point = at or default
    points = sorted({*h_axis.values.tolist(), default[0], point[0]})
    jobs = max(1, args.jobs)
    replayed = replay_run(args.run, points, args.questions, args.allow_incomplete, jobs)
    if args.folds > len(replayed.items):
        raise InputError(f"--folds {args.folds}: only {len(replayed.items)} question(s) to divide")

    def analysed(run_replayed: Replayed) -> Sweep:
        return analyse(run_replayed, h_axis, a_axis, args.wrong_cost, args.bootstrap, args.folds, args.seed)

    result = analysed(replayed)
    if args.review:
        pending = unjudged_on_grid(result)
        path = verdicts_path(replayed.questions.path)
        print(f"{len(pending)} unjudged quote(s) on the grid; answers are saved in {path} as you give them.")
        if pending and review(pending, path, replayed.questions):
            result = analysed(rejudge(replayed))
    comparison = None
    if args.baseline is not None:
        require_comparable(replayed.record, open_run(args.baseline), replayed.run_dir, args.baseline)  # before replay
        # judged with the run's question file and verdicts: between the two, only the evidence differs
        base = replay_run(args.baseline, points, replayed.questions.path, args.allow_incomplete, jobs)
        comparison = compare(result, analyse(base, h_axis, a_axis, args.wrong_cost, 0), point)
    holds, gate_line = gate(result, at, args.max_wrong, args.min_correct) if at else (True, "")

    out_dir = args.out or Path("reports") / Path(args.run).resolve().name
    grid = grid_frame(result)
    files = {"grid.csv": csv_bytes(grid), "questions.csv": csv_bytes(questions_frame(result, comparison))}
    if comparison is not None:
        files["comparison.csv"] = csv_bytes(comparison_frame(result, comparison))
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [] if args.no_plots else plot_all(result, grid, out_dir, comparison)
    files["summary.md"] = summary_markdown(result, written, gate_line, comparison).encode()
    write_files(out_dir, files, [name for _, name in written])
    report(result, out_dir, gate_line, comparison)
    return EXIT_OK if holds and not (comparison and comparison.worse) else EXIT_WORSE


def report(result: Sweep, out_dir: Path, gate_line: str, comparison: Comparison | None) -> None:
    replayed = result.replayed
    if replayed.excluded:
        print(f"INCOMPLETE: {len(replayed.excluded)} question(s) left out:")
        for question, why in replayed.excluded:
            print(f"  {terminal(question.id)}: {terminal(why)}")
    evidence = replayed.record.get("evidence") or "unknown"
    repeats = f", {result.repeats} repeats" if result.repeats > 1 else ""
    print(f"Swept {len(replayed.items)} question(s) of {replayed.run_dir} ({evidence} evidence{repeats}) over "
          f"{result.counts.shape[0]} x {result.counts.shape[1]} cells.")
    d, r = result.default, result.recommended
    print(f"\nOutcome    | default ({d.h:g}, {d.a:g}) | recommended ({r.h:g}, {r.a:g})")
    for outcome in Outcome:
        if outcome is not Outcome.UNJUDGED or d.mean(outcome) or r.mean(outcome):
            print(f"{label(outcome):<10} | {d.mean(outcome):>18g} | {r.mean(outcome):>22g}")
    if result.stability is not None:
        print(f"\nBootstrap: the recommended cell's region was chosen in {result.stability.in_region:.0%} of "
              f"{result.stability.resamples} resamples.")
    if comparison is not None:
        tally = comparison.tally()
        print(f"\nAgainst {comparison.baseline.run_dir}: " + ", ".join(
            f"{name} {tally.get(name, 0)}" for name in ("NEW_WRONG", "NEW_MISSED", "FIXED", "REVIEW", "UNCHANGED")))
        for caution in comparison.cautions:
            print(f"CAUTION: {caution}")
    if gate_line:
        print(f"\nGate: {gate_line}")
    print(f"\nWrote {out_dir}/summary.md and the tables beside it")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except QuoteFinderError as error:
        print(f"sweep.py: {error}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as error:
        print(f"sweep.py: cannot read or write {error.filename or 'a file'} ({error.strerror or error})",
              file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
