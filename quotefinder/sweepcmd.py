"""`python sweep.py RUN`: replay a recorded run offline over a grid of HAS_ANSWER_CUTOFF x ANSWER_CUTOFF
and write what the pipeline would have done at every cell: correct / wrong / missed / no-answer counts,
plots, and a summary with a recommended pair of cutoffs. Never opens a network connection; needs no key.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import pandas as pd

from .decision import HAS_ANSWER_CUTOFF
from .errors import InputError, QuoteFinderError
from .grid import Axis, at_point, parse_axis
from .questions import OUTCOMES, Outcome
from .replay import open_run, replay_run
from .report import Sweep, csv_bytes, grid_frame, label, questions_frame, summary_markdown, sweep, write_files
from .textsafe import terminal

EXIT_OK, EXIT_GATE, EXIT_ERROR = 0, 1, 2
DEFAULT_GRID = "0:1:0.05"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sweep.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "Every cell is exactly the pipeline's decision with those cutoffs: the qualified set's own\n"
            "cached compare response, the recipe's tie-breaks, and `probability >= cutoff` on both axes.\n\n"
            "exit status: 0 done (and the --at bounds hold); 1 an --at bound is broken; 2 it cannot run\n\n"
            "examples:\n"
            "  python sweep.py runs/ten\n"
            "  python sweep.py runs/ten --has-answer 0.2:0.5:0.01 --answer 0.5:1:0.01 --no-plots\n"
            "  python sweep.py runs/ten --at 0.3,0.85 --max-wrong 0 --min-correct 6    # a CI gate"
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
    parser.add_argument("--at", metavar="H,A", help="check this pair of cutoffs against the bounds below")
    parser.add_argument("--max-wrong", type=int, metavar="N", help="with --at: exit 1 if more than N wrong quotes")
    parser.add_argument("--min-correct", type=int, metavar="N", help="with --at: exit 1 if fewer than N correct")
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
    """Check the bounds at one point; return (holds, a sentence saying why)."""
    judged = at_point(result.items, *at)
    wrong = sum(1 for _, o in judged if o is Outcome.WRONG)
    correct = sum(1 for _, o in judged if o is Outcome.CORRECT)
    checks = []
    if max_wrong is not None:
        checks.append((wrong <= max_wrong, f"wrong {wrong} <= {max_wrong}"))
    if min_correct is not None:
        checks.append((correct >= min_correct, f"correct {correct} >= {min_correct}"))
    holds = all(ok for ok, _ in checks)
    words = ", ".join(f"{text} {'holds' if ok else 'BROKEN'}" for ok, text in checks) or "no bounds given"
    return holds, f"{'PASS' if holds else 'FAIL'} at ({at[0]:g}, {at[1]:g}): {words}"


def plot_all(result: Sweep, grid, out_dir: Path) -> list[tuple[str, str]]:
    """Write the PNGs; return (title, file name) for the summary."""
    from . import plots  # matplotlib takes a quarter of a second to import: only when plotting
    synthetic = " (synthetic)" if result.replayed.synthetic else ""
    rec, default = result.recommended, result.default
    marks = {"default": (default.h, default.a), "recommended": (rec.h, rec.a)}
    written = []
    for outcome in ("correct", "wrong", "missed", "no_answer", "unjudged"):
        if outcome == "unjudged" and not grid["unjudged"].any():
            continue
        name = f"heatmap-{outcome.replace('_', '-')}.png"
        title = f"{label(Outcome(outcome)).capitalize()} questions per cell{synthetic}"
        plots.heatmap(grid, outcome, out_dir / name, marks, title)
        written.append((title, name))
    along_a = grid[grid["has_answer_cutoff"] == rec.h]
    title = f"Outcomes vs ANSWER_CUTOFF at HAS_ANSWER_CUTOFF {rec.h:g}{synthetic}"
    plots.counts_along(along_a, "answer_cutoff", out_dir / "along-answer-cutoff.png", title, rec.a)
    written.append((title, "along-answer-cutoff.png"))
    along_h = grid[grid["answer_cutoff"] == rec.a]
    title = f"Outcomes vs HAS_ANSWER_CUTOFF at ANSWER_CUTOFF {rec.a:g}{synthetic}"
    plots.counts_along(along_h, "has_answer_cutoff", out_dir / "along-has-answer-cutoff.png", title, rec.h)
    written.append((title, "along-has-answer-cutoff.png"))
    title = f"Where each question's outcome flips, at HAS_ANSWER_CUTOFF {rec.h:g}{synthetic}"
    plots.flips(flip_frame(result), out_dir / "flips.png", title, rec.a)
    written.append((title, "flips.png"))
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


def run(args: argparse.Namespace) -> int:
    h_axis: Axis = parse_axis(args.has_answer, "--has-answer")
    a_axis: Axis = parse_axis(args.answer, "--answer")
    at = parse_point(args.at) if args.at else None
    if at is None and (args.max_wrong is not None or args.min_correct is not None):
        raise InputError("--max-wrong and --min-correct check a point: give it with --at H,A")
    if not args.wrong_cost >= 0:
        raise InputError(f"--wrong-cost {args.wrong_cost}: must be a number >= 0")
    config = open_run(args.run).get("config", {})
    points = {*h_axis.values.tolist(), config.get("has_answer_cutoff", HAS_ANSWER_CUTOFF)}
    if at is not None:
        points.add(at[0])
    replayed = replay_run(args.run, sorted(points), args.questions, args.allow_incomplete, max(1, args.jobs))
    result = sweep(replayed, h_axis, a_axis, args.wrong_cost)
    holds, gate_line = gate(result, at, args.max_wrong, args.min_correct) if at else (True, "")

    out_dir = args.out or Path("reports") / Path(args.run).resolve().name
    grid = grid_frame(result)
    files = {"grid.csv": csv_bytes(grid), "questions.csv": csv_bytes(questions_frame(result))}
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [] if args.no_plots else plot_all(result, grid, out_dir)
    files["summary.md"] = summary_markdown(result, written, gate_line).encode()
    write_files(out_dir, files)
    report(result, out_dir, gate_line)
    return EXIT_OK if holds else EXIT_GATE


def report(result: Sweep, out_dir: Path, gate_line: str) -> None:
    replayed = result.replayed
    if replayed.excluded:
        print(f"INCOMPLETE: {len(replayed.excluded)} question(s) left out:")
        for question, why in replayed.excluded:
            print(f"  {terminal(question.id)}: {terminal(why)}")
    evidence = replayed.record.get("evidence") or "unknown"
    print(f"Swept {len(replayed.items)} question(s) of {replayed.run_dir} ({evidence} evidence) over "
          f"{result.counts.shape[0]} x {result.counts.shape[1]} cells.")
    d, r = result.default, result.recommended
    print(f"\nOutcome    | default ({d.h:g}, {d.a:g}) | recommended ({r.h:g}, {r.a:g})")
    for outcome in Outcome:
        if outcome is not Outcome.UNJUDGED or d.count(outcome) or r.count(outcome):
            print(f"{label(outcome):<10} | {d.count(outcome):>18} | {r.count(outcome):>22}")
    if gate_line:
        print(f"\nGate: {gate_line}")
    print(f"\nWrote {out_dir}/summary.md, grid.csv, questions.csv")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except QuoteFinderError as error:
        print(f"sweep.py: {error}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as error:
        print(f"sweep.py: cannot write the report ({error.strerror or error}: {error.filename})", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
