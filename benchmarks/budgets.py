"""`python -m benchmarks.budgets --before DIR --run RUN`: the speed a user feels, as budgets, measured side by side
with the code before a change (DIR, a checkout: `git worktree add DIR COMMIT`) in one run, each sweep a fresh
process, the two codes alternating round by round (each first in every other round), medians:

- the demo with every file (`sweep.py runs/ten`), each code; the budget: under 2 s on a quiet 2-core machine;
- a 1,001 x 1,001 grid of the demo, every file and tables only (`--no-plots`), each code; the budget: every
  file at most 1.5 x tables only;
- a first 101 x 101 sweep of RUN (a 10,000-question run, `benchmarks.bench`'s; tables only, no derived file
  kept: each sweep with a cache of its own), each code; the budget: no slower than before;
- the same first sweep of this checkout with one process (`--jobs 1`) and with the pool (the default): the pool
  stays only while it saves a fifth of that sweep's wall time.

Each code sweeps its own hard-linked copy of RUN (`sidebyside.linked_copy`). It prints a Markdown table of medians
and ratios, with the machine and the commits, for BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .bench import BIG_GRID, machine, timed
from .sidebyside import linked_copy


def commit(code: Path) -> str:
    """The commit a checkout is at (and `+changes` when its work tree differs), or `?` outside git."""
    done = subprocess.run(["git", "-C", str(code), "describe", "--always", "--dirty=+changes", "--abbrev=7"],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip() or "?"


def sweep(code: Path, run: Path, out: Path, *options: str) -> list[str]:
    return [sys.executable, str(code / "sweep.py"), str(run), "--out", str(out), "--force", *options]


def first(command: list[str]) -> float:
    """`command` (a sweep) timed with a cache directory of its own, empty: no replay index, no kept parse."""
    with tempfile.TemporaryDirectory(prefix="budgets-cache-") as cache:
        return timed(command, env={**os.environ, "QUOTEFINDER_CACHE_DIR": cache})[0]


def rounds(variants: dict[str, list[str]], count: int, fresh: bool) -> dict[str, list[float]]:
    """Each variant `count` times, in turn (the order reversed every other round), each in a fresh process: wall
    seconds; with `fresh`, every sweep with an empty cache of its own (a first sweep)."""
    found: dict[str, list[float]] = {name: [] for name in variants}
    order = list(variants)
    for round_ in range(count):
        for name in order if round_ % 2 == 0 else order[::-1]:
            command = variants[name]
            found[name].append(first(command) if fresh else timed(command)[0])
    return found


def table(samples: dict[str, list[float]], pairs: Sequence[tuple[str, str, str, str]]) -> list[str]:
    """Markdown rows: each measure's median for both variants of a pair and their ratio (second / first)."""
    rows = ["| Measure | A | B | B / A | Budget |", "|---|---:|---:|---:|---|"]
    for what, a, b, budget in pairs:
        left, right = statistics.median(samples[a]), statistics.median(samples[b])
        rows.append(f"| {what} | {a}: {left:.2f} s | {b}: {right:.2f} s | {right / left:.2f} | {budget} |")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.budgets", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the code before the change")
    parser.add_argument("--run", type=Path, required=True, help="a 10,000-question run (`benchmarks.bench`'s)")
    parser.add_argument("--demo", type=Path, default=Path("runs/ten"), help="the demo run (default runs/ten)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of the demo and the first sweeps")
    parser.add_argument("--huge-rounds", type=int, default=3, help="rounds of the 1,001 x 1,001 grid")
    parser.add_argument("--huge-step", default="0.001", help="the step of that grid's axes (default 0.001)")
    parser.add_argument("--work", type=Path, default=Path("bench-data/budgets"))
    args = parser.parse_args(argv)
    codes = {"before": args.before.resolve(), "after": Path(__file__).resolve().parents[1]}
    for code in codes.values():  # bytecode for both, as an installed package has it
        if not compileall.compile_dir(code / "quotefinder", quiet=1):
            raise SystemExit(f"{code}: its modules do not all compile")
    shutil.rmtree(args.work, ignore_errors=True)
    runs = {name: linked_copy(args.run.resolve(), args.work / "runs" / name) for name in codes}
    demo, out = args.demo.resolve(), args.work / "out"
    samples: dict[str, list[float]] = {}
    samples |= rounds({f"{name} demo every file": sweep(code, demo, out / name) for name, code in codes.items()}
                      | {f"{name} demo tables only": sweep(code, demo, out / name, "--no-plots")
                         for name, code in codes.items()}, args.rounds, fresh=False)
    huge = ("--has-answer", f"0:1:{args.huge_step}", "--answer", f"0:1:{args.huge_step}")
    samples |= rounds({f"{name} 1,001 x 1,001 {kind}": sweep(code, demo, out / name, *huge, *extra)
                       for name, code in codes.items() for kind, extra in (("every file", ()),
                                                                           ("tables only", ("--no-plots",)))},
                      args.huge_rounds, fresh=False)
    samples |= rounds({f"{name} first 101 x 101": sweep(code, runs[name], out / name, *BIG_GRID, "--no-plots")
                       for name, code in codes.items()}
                      | {"after first 101 x 101, --jobs 1": sweep(codes["after"], runs["after"], out / "after",
                                                                   *BIG_GRID, "--no-plots", "--jobs", "1")},
                      args.rounds, fresh=True)
    print(f"Machine: {machine()}; load average before: {os.getloadavg()[0]:.2f}.")
    print(f"Commits: before {commit(codes['before'])}, after {commit(codes['after'])}; "
          f"`python -m benchmarks.budgets --before {args.before} --run {args.run} --rounds {args.rounds} "
          f"--huge-rounds {args.huge_rounds}`; medians of wall seconds.\n")
    pairs = [("demo, every file", "before demo every file", "after demo every file", "after under 2 s"),
             ("demo, tables only against every file (after)", "after demo tables only", "after demo every file", ""),
             ("1,001 x 1,001, tables only against every file (after)", "after 1,001 x 1,001 tables only",
              "after 1,001 x 1,001 every file", "at most 1.5"),
             ("1,001 x 1,001, every file", "before 1,001 x 1,001 every file", "after 1,001 x 1,001 every file", ""),
             ("first 101 x 101 sweep of RUN, tables only", "before first 101 x 101", "after first 101 x 101",
              "at most 1"),
             ("first 101 x 101 sweep, the pool against one process (after)", "after first 101 x 101, --jobs 1",
              "after first 101 x 101", "the pool stays at most 0.8")]
    print("\n".join(table(samples, pairs)))
    print("\nEvery sample: " + "; ".join(f"{name}: {', '.join(f'{v:.2f}' for v in values)}"
                                         for name, values in samples.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
