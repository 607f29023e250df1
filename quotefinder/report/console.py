"""What sweep.py prints in the terminal: what was swept, the default and recommended points, how stable
the choice is, the comparison and the gate, and where the report went. Page text passes through
`textsafe.terminal`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from ..questions import UNKNOWN, Outcome
from ..sweep.analysis import Gate, Sweep
from ..sweep.compare import Comparison
from ..textsafe import terminal
from .numbers import at_most, confidence


def show_sweep(result: Sweep, out_dir: Path, gate: Gate | None, comparison: Comparison | None,
               out: TextIO | None = None) -> None:
    """What a sweep did, in a few lines: what was swept, the two points, stability, the comparison, the gate."""
    out = out or sys.stdout
    replayed = result.replayed
    if replayed.excluded:
        print(f"INCOMPLETE: {len(replayed.excluded)} question(s) left out:", file=out)
        for left in replayed.excluded:
            print(f"  {terminal(left.question.id)}: {terminal(left.why)}", file=out)
    repeats = f", {result.repeats} repeats" if result.repeats > 1 else ""
    print(f"Swept {len(result.questions)} question(s) of {replayed.run_dir} ({replayed.record.evidence_word} "
          f"evidence{repeats}) over {result.counts.shape[0]} x {result.counts.shape[1]} cells.", file=out)
    d, r = result.default, result.recommended
    print(f"\nOutcome    | default ({d.h:g}, {d.a:g}) | recommended ({r.h:g}, {r.a:g})", file=out)
    for outcome in Outcome:
        if outcome not in UNKNOWN or d.mean(outcome) or r.mean(outcome):
            print(f"{outcome.label:<10} | {d.mean(outcome):>18g} | {r.mean(outcome):>22g}", file=out)
    if result.choice.is_default:
        print("\nThe recommended point is the default: its score is within one standard error of the best cell's.",
              file=out)
    if result.stability is not None:
        print(f"\nBootstrap: the recommended cell's region was chosen in {result.stability.in_region:.0%} of "
              f"{result.stability.resamples} resamples.", file=out)
    g = result.guarantee
    sure = f"with probability >= {confidence(g.delta)}"
    if g.certificate is None:
        print(f"Guarantee: at the default point, a wrong-quote rate of at most {at_most(g.default_bound)} {sure}.",
              file=out)
    elif g.best is None:
        print(f"Guarantee: no cell certified at a wrong-quote rate of {at_most(g.certificate.alpha)} {sure}.",
              file=out)
    else:
        h, a = result.h_axis.values[g.best.h_index], result.a_axis.values[g.best.a_index]
        print(f"Guarantee: {int(g.certificate.certified.sum())} cell(s) certified at a wrong-quote rate of at most "
              f"{at_most(g.certificate.alpha)} {sure}; the best of them is ({h:g}, {a:g}).", file=out)
    if comparison is not None:
        print(f"\nAgainst {comparison.baseline.run_dir}: {comparison.tally_words()}", file=out)
        print(f"Worse overall? {comparison.verdict_words()}", file=out)
        for caution in comparison.cautions:
            print(f"CAUTION: {caution}", file=out)
    if gate is not None:
        print(f"\nGate: {gate.words}", file=out)
    print(f"\nWrote {out_dir}/summary.md and the tables beside it", file=out)
