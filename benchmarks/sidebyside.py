"""`python -m benchmarks.sidebyside --before DIR --run RUN`: a change's speed against the code before it,
measured side by side in one run (this machine's speed moves by a third from hour to hour; alternating the two
codes round by round is what makes their difference readable).

DIR is a checkout of the code before (`git worktree add DIR COMMIT`); this checkout is the code after. Each
code sweeps its own hard-linked copy of RUN (the same response files, so the same page cache; each its own
replay index, whose key may differ between codes), with its question file. Each round times, in fresh
processes, `--no-plots` each: the floor (read, checksum, parse every response, `bench.FLOOR`), then for each
code (the first in every other round) the sweeps of `bench.reading_round`: a first 101 x 101 sweep (no index of
that grid; the 1 x 1 grid's rebuilt just before), a repeated one and a repeated 1 x 1. It prints each row's
median over the rounds, as seconds and as a ratio to the floor, and last has each code replay the before code's
copy of RUN afresh (so that the run's path is the same in both reports) and compares the two reports byte for
byte, and their exit status (exit 1 when they differ).

Both codes' modules are compiled to bytecode first (`compileall`, into each checkout's `__pycache__`, which git
ignores), as an installed package's are: otherwise a checkout that has been run before imports its bytecode while a
fresh worktree compiles every module from source in every process (where `PYTHONDONTWRITEBYTECODE` is set, for
good), a few hundredths of a second a sweep that would count as the change's.
"""

from __future__ import annotations

import argparse
import compileall
import filecmp
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from quotefinder.record.rundir import RunRecord

from .bench import BIG_GRID, FLOOR, SMALL_GRID, indexes_of, reading_round, timed

REPORT = ("--no-plots", "--force")
ROWS = ("first", "repeated", "small")  # `bench.reading_round`'s


def linked_copy(run: Path, target: Path) -> Path:
    """RUN's files hard-linked under `target`: its run directory (no index) and the question file its run.json
    names, placed as they are relative to each other (below their nearest common directory). SystemExit when
    they cannot be linked there."""
    record = RunRecord.require(run)
    if record.questions_file is None:
        raise SystemExit(f"{run}: its run.json names no question file to sweep it with")
    named = (run / record.questions_file.path).resolve()
    base = Path(os.path.commonpath([run.resolve(), named.parent]))
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    if os.stat(target).st_dev != os.stat(run).st_dev:
        raise SystemExit(f"--work {target} is on another filesystem than {run}: hard links need the same one")
    copied = target / run.resolve().relative_to(base)
    shutil.copytree(run, copied, copy_function=os.link, ignore=shutil.ignore_patterns("replay-index"))
    (target / named.relative_to(base)).parent.mkdir(parents=True, exist_ok=True)
    os.link(named, target / named.relative_to(base))
    return copied


def sweep(code: Path, run: Path, out: Path, *options: str) -> list[str]:
    return [sys.executable, str(code / "sweep.py"), str(run), "--out", str(out), *options]


def same_reports(left: Path, right: Path) -> list[str]:
    """The paths that differ between two report directories, byte for byte, or are in one only."""
    def listed(root: Path) -> set[str]:
        return {str(path.relative_to(root)) for path in root.rglob("*") if not path.is_dir()}

    mine, theirs = listed(left), listed(right)
    return sorted((mine ^ theirs) | {name for name in mine & theirs
                                     if not filecmp.cmp(left / name, right / name, shallow=False)})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.sidebyside", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the code before the change")
    parser.add_argument("--run", type=Path, required=True, help="a recorded run (e.g. bench-data/run)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path("bench-data/sidebyside"))
    args = parser.parse_args(argv)
    after = Path(__file__).resolve().parents[1]
    codes = {"before": args.before.resolve(), "after": after}
    for code in codes.values():
        if not compileall.compile_dir(code / "quotefinder", quiet=1):
            raise SystemExit(f"{code}: its modules do not all compile")
    runs = {name: linked_copy(args.run.resolve(), args.work / name) for name in codes}
    out = args.work / "reports"
    floor = [sys.executable, "-c", FLOOR, str(runs["after"] / "responses")]
    timed(floor)  # warm
    samples: dict[str, list[float]] = {name: [] for name in ["floor", *(f"{c} {r}" for c in codes for r in ROWS)]}
    for round_ in range(args.rounds):
        samples["floor"].append(timed(floor)[0])
        order = list(codes.items())
        for name, code in order if round_ % 2 == 0 else order[::-1]:  # each code first in every other round
            run = runs[name]
            found = reading_round(sweep(code, run, out / "big", *BIG_GRID, *REPORT),
                                  sweep(code, run, out / "small", *SMALL_GRID, *REPORT), indexes_of(run))
            for row, (seconds, _) in found.items():
                samples[f"{name} {row}"].append(seconds)
    medians = {name: statistics.median(values) for name, values in samples.items()}
    print(f"floor: {medians['floor']:.2f} s (median of {args.rounds}; every round: "
          f"{', '.join(f'{v:.2f}' for v in samples['floor'])})")
    for row in ROWS:
        shown = [f"{name} {medians[f'{name} {row}']:.2f} s = {medians[f'{name} {row}'] / medians['floor']:.2f} x"
                 for name in codes]
        print(f"{row}: " + "; ".join(shown))
    for name in codes:
        print(f"{name}: repeated 101 x 101 / 1 x 1: {medians[f'{name} repeated'] / medians[f'{name} small']:.2f}")
    statuses = []
    for name, code in codes.items():  # both on the before code's copy: the same run path in both reports, and
        shutil.rmtree(out / f"same-{name}", ignore_errors=True)  # each replaying it afresh (no index)
        for index in indexes_of(runs["before"]):
            shutil.rmtree(index, ignore_errors=True)
        done = subprocess.run(sweep(code, runs["before"], out / f"same-{name}", *BIG_GRID, *REPORT), check=False,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode not in (0, 1):
            raise SystemExit(f"the {name} code's sweep failed (exit {done.returncode}): {done.stderr[-2000:]}")
        statuses.append(done.returncode)
    differ = same_reports(out / "same-before", out / "same-after")
    if statuses[0] != statuses[1]:
        differ.append(f"the exit status ({statuses[0]} before, {statuses[1]} after)")
    print("reports byte-identical: " + ("yes" if not differ else "NO: " + ", ".join(differ)))
    return 0 if not differ else 1


if __name__ == "__main__":
    sys.exit(main())
