"""What sweep.py prints in the terminal: what was swept, the decision (in the words the summary and the
page use), the default and recommended points, the comparison and the gate, and where the report went.
Page text passes through `textsafe.terminal`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from ..core.plugin import AxisSpec
from ..core.textsafe import terminal
from ..questions import UNKNOWN, Outcome
from ..sweep.analysis import Gate, Sweep
from ..sweep.compare import Comparison
from ..sweep.drift import Drift
from ..sweep.monitor import Monitor
from ..sweep.systems import Systems
from . import drift as drifting
from . import versus
from .numbers import point_words
from .wording import comparison_verdict_words, decision_lines, gate_words, tally_words


def show_sweep(result: Sweep, out_dir: Path, gate: Gate | None, comparison: Comparison | None,
               out: TextIO | None = None, page: bool = False) -> None:
    """What a sweep did, in a few lines: what was swept, the decision, the default against the rule's cell, the
    comparison, the gate."""
    out = out or sys.stdout
    replayed = result.replayed
    if replayed.excluded:
        print(f"INCOMPLETE: {len(replayed.excluded)} question(s) left out:", file=out)
        for left in replayed.excluded:
            print(f"  {terminal(left.question.id)}: {terminal(left.why)}", file=out)
    repeats = f", {result.repeats} repeats" if result.repeats > 1 else ""
    print(f"Swept {len(result.questions)} question(s) of {replayed.run_dir} ({replayed.record.evidence_word} "
          f"evidence{repeats}) over {result.counts.shape[0]} x {result.counts.shape[1]} cells.", file=out)
    print("\nDecision:", file=out)
    for line in decision_lines(result):
        print(f"  {line}", file=out)
    d, r = result.default, result.tuned
    default = f"default {point_words(result.system.axes, (d.h, d.a))}"
    recommended = f"rule's cell {point_words(result.system.axes, (r.h, r.a))}, in sample"
    print(f"\nOutcome    | {default} | {recommended}", file=out)
    for outcome in Outcome:
        if outcome not in UNKNOWN or d.mean(outcome) or r.mean(outcome):
            print(f"{outcome.label:<10} | {d.mean(outcome):>{len(default)}g} | {r.mean(outcome):>{len(recommended)}g}",
                  file=out)
    if comparison is not None:
        print(f"\nAgainst {comparison.baseline.run_dir}: {tally_words(comparison)}", file=out)
        print(f"Worse overall? {comparison_verdict_words(comparison)}", file=out)
        for caution in comparison.cautions:
            print(f"CAUTION: {terminal(caution)}", file=out)
    if gate is not None:
        print(f"\nGate: {gate_words(result, gate)}", file=out)
    written = f"{out_dir}/summary.md, {out_dir}/decision.json" + (f", {out_dir}/index.html" if page else "")
    print(f"\nWrote {written} and the tables beside it", file=out)


def show_systems(systems: Systems, out_dir: Path, page: bool) -> None:
    """What `sweep.py RUN_A RUN_B ...` prints: which to ship, in the words of the page, and where the report is."""
    lines = versus.ship_words(systems)
    print(f"Compared {len(systems.systems)} systems on {len(systems.questions)} question(s) "
          f"({systems.evidence} evidence).")
    print(f"Which to ship: {terminal(lines[0])}")
    for line in lines[1:]:
        print(f"  {terminal(line)}")
    written = f"{out_dir}/summary.md, {out_dir}/decision.json" + (f", {out_dir}/index.html" if page else "")
    print(f"\nWrote {written} and {out_dir}/systems.csv")



def show_drift(drift: Drift, result: Sweep, out: TextIO | None = None) -> None:
    """The drift of a refresh, after the sweep's own lines."""
    out = out or sys.stdout
    print("", file=out)
    for line in drifting.drift_console(drift, result):
        print(terminal(line), file=out)


def show_monitor(monitor: Monitor, axes: tuple[AxisSpec, AxisSpec], out_dir: Path, out: TextIO | None = None) -> None:
    """What `sweep.py --monitor` prints: a line per refresh, the alarm in words, and where the report is."""
    out = out or sys.stdout
    print(f"Monitor of {terminal(monitor.original)} at ({axes[0].shown(monitor.point[0])}, "
          f"{axes[1].shown(monitor.point[1])}) against "
          f"{monitor.alpha:g} ({monitor.evidence} evidence):", file=out)
    for n, w in enumerate(monitor.watches, start=1):
        print(f"  {n}. {terminal(w.run)} ({w.started_at}): {w.questions} questions, estimate {100 * w.estimate:.1f}%, "
              f"lower bound {100 * w.lower:.1f}% (one-sided), evidence so far {w.e_value:.3g} (1: none; alarm at "
              f"{1 / monitor.delta:g})"
              f"{', ALARM' if w.alarm else ''}", file=out)
    for caution in monitor.cautions:
        print(f"  CAUTION: {terminal(drifting.monitor_caution_words(caution))}", file=out)
    print(terminal(drifting.monitor_alarm_words(monitor)), file=out)
    print(f"\nWrote {out_dir}/summary.md, {out_dir}/decision.json and {out_dir}/monitor.csv", file=out)
