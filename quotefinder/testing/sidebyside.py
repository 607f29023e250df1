"""`python -m quotefinder.testing.sidebyside --before DIR --run RUN`: a change's speed against the code before it,
measured side by side in one run (this machine's speed moves by a third from hour to hour; alternating the two
codes round by round is what makes their difference readable).

DIR is a checkout of the code before (`git worktree add DIR COMMIT`); this checkout is the code after. Each
code sweeps its own hard-linked copy of RUN (the same response files, so the same page cache; each its own
replay index, whose key may differ between codes), with the question file beside it. Each round times, in fresh
processes, `--no-plots` each: the floor (read, checksum, parse every response, `bench.FLOOR`), then for each
code (the first in every other round) a first 101 x 101 sweep (no index of that grid; the 1 x 1 grid's rebuilt
just before), a repeated one, and the two with `--bootstrap 20`: 101 x 101 and 1 x 1. It prints each row's
median over the rounds, as seconds and as a ratio to the floor, and last has each code replay the before code's
copy of RUN afresh (so that the run's path is the same in both reports) and compares the two reports byte for
byte, and their exit status (exit 1 when they differ).
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from ..record.rundir import RunRecord
from .bench import EVEN_RESAMPLES, FLOOR, timed

BIG = ["--has-answer", "0:1:0.01", "--answer", "0:1:0.01", "--no-plots", "--force"]
SMALL = ["--has-answer", "0.3:0.3:0.1", "--answer", "0.6:0.6:0.1", "--no-plots", "--force"]
ROWS = ("first", "repeated", "big_even", "small_even")


def linked_copy(run: Path, target: Path) -> Path:
    """RUN's files hard-linked under `target` (its run directory, no index, and the question file its run.json
    names, at the same place relative to it). SystemExit when they cannot be linked there."""
    record = RunRecord.require(run)
    named = run / record.questions_file.path if record.questions_file else None
    if named is None or not named.resolve().is_relative_to(run.parent.resolve()):
        raise SystemExit(f"{run}: its question file must lie beside the run (in {run.parent}) to be linked")
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    if os.stat(target).st_dev != os.stat(run).st_dev:
        raise SystemExit(f"--work {target} is on another filesystem than {run}: hard links need the same one")
    shutil.copytree(run, target / run.name, copy_function=os.link, ignore=shutil.ignore_patterns("replay-index"))
    relative = named.resolve().relative_to(run.parent.resolve())
    (target / relative).parent.mkdir(parents=True, exist_ok=True)
    os.link(named.resolve(), target / relative)
    return target / run.name


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
    parser = argparse.ArgumentParser(prog="python -m quotefinder.testing.sidebyside", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the code before the change")
    parser.add_argument("--run", type=Path, required=True, help="a recorded run (e.g. bench-data/run)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path("bench-data/sidebyside"))
    args = parser.parse_args(argv)
    after = Path(__file__).resolve().parents[2]
    codes = {"before": args.before.resolve(), "after": after}
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
            shutil.rmtree(run / "replay-index", ignore_errors=True)
            timed(sweep(code, run, out / "small", *SMALL))  # the 1 x 1 grid's index, so only 101 x 101's is missing
            samples[f"{name} first"].append(timed(sweep(code, run, out / "big", *BIG))[0])
            samples[f"{name} repeated"].append(timed(sweep(code, run, out / "big", *BIG))[0])
            even = ["--bootstrap", str(EVEN_RESAMPLES)]
            samples[f"{name} big_even"].append(timed(sweep(code, run, out / "big", *BIG, *even))[0])
            samples[f"{name} small_even"].append(timed(sweep(code, run, out / "small", *SMALL, *even))[0])
    medians = {name: statistics.median(values) for name, values in samples.items()}
    print(f"floor: {medians['floor']:.2f} s (median of {args.rounds}; every round: "
          f"{', '.join(f'{v:.2f}' for v in samples['floor'])})")
    for row in ROWS:
        shown = [f"{name} {medians[f'{name} {row}']:.2f} s = {medians[f'{name} {row}'] / medians['floor']:.2f} x"
                 for name in codes]
        print(f"{row}: " + "; ".join(shown))
    for name in codes:
        print(f"{name}: 101 x 101 / 1 x 1, both --bootstrap {EVEN_RESAMPLES}: "
              f"{medians[f'{name} big_even'] / medians[f'{name} small_even']:.2f}")
    statuses = []
    for name, code in codes.items():  # both on the before code's copy: the same run path in both reports, and
        shutil.rmtree(out / f"same-{name}", ignore_errors=True)  # each replaying it afresh (no index)
        shutil.rmtree(runs["before"] / "replay-index", ignore_errors=True)
        done = subprocess.run(sweep(code, runs["before"], out / f"same-{name}", *BIG), check=False,
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
