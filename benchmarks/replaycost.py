"""`python -m benchmarks.replaycost --run RUN`: what a first sweep's replay costs, against the floor
(BENCHMARKS.md, "What a first sweep is up against").

After one untimed floor (so that the responses are in the page cache), each round times, alternating:

- the floor (`bench.FLOOR`: read, checksum and parse every response file, a fresh process);
- the replay of every question in this process, as a sweep's worker does it (`replay.replay_pairs`), in CPU
  seconds with the collector off;
- the same replay with every response served from memory (`Served`: each read once, beforehand), which leaves
  the pipeline's own work: building and hashing each request, splitting snippets, taking what each response says
  (the contract's checks), making the curve. It also looks each response up in memory, and, like the one above,
  pickles nothing (a worker sends its curves to the sweep pickled);
- a first 101 x 101 sweep, `--no-plots`, by wall: every replay index file of the run is removed before it (other
  grids' too) and its kept question parse stays, as for a first sweep; the report goes to a temporary directory.

The response files' part (each opened, read, checksummed, parsed, checked as the run's entry) is the difference
of the two replays. On two cores a replay takes at least half its CPU in wall time; with the work around it, that
estimates the fastest first sweep.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from quotefinder.cli import collector_paused
from quotefinder.record.received import Received
from quotefinder.record.rundir import RunRecord
from quotefinder.record.store import Entry, ResponseStore, open_store
from quotefinder.sweep import replay, session
from quotefinder.sweep.grid import parse_axis
from quotefinder.sweep.index import SUFFIX, index_dir

from .bench import BIG_GRID, FLOOR, timed


class Served:
    """A run's store whose `read` answers from memory what the store read the first time (the same `Received` and
    `Entry`): a replay through it does the pipeline's work without reading a file."""

    def __init__(self, store: ResponseStore) -> None:
        self.store = store
        self.kept: dict[str, tuple[Received, Entry]] = {}

    def read(self, request: Any) -> tuple[Received, Entry]:
        found = self.kept.get(request.key)
        if found is None:
            found = self.kept[request.key] = self.store.read(request)
        return found

    def where(self, request: Any) -> str:
        return self.store.where(request)


def coverage_of(run: Path, record: RunRecord) -> replay.Coverage:
    """What a 101 x 101 sweep of the run (`BIG_GRID`) replays for: `session.needed`, as `run_sweep` calls it."""
    axes = session.grid_axes(record, (parse_axis(BIG_GRID[1]), parse_axis(BIG_GRID[3])))
    default = record.config.default_point
    point = (float(default[0]), float(default[1]))
    return session.needed(record, session.SweepOptions(run, *axes), point, point)


def served_replays(record: RunRecord, pairs: list[replay.Pair], coverage: replay.Coverage, served: Served
                   ) -> dict[replay.Pair, replay.Replay]:
    """Every pair replayed through `served` (`replay.replay`, as `replay_pairs` does with the run's store)."""
    under_test, config = replay.run_system(record)
    return replay.replay(under_test, config, served, pairs, coverage)  # type: ignore[arg-type]


def cpu(work: Callable[..., object], *args: Any) -> float:
    """The CPU seconds `work(*args)` takes in this process, with the collector off (as a sweep runs,
    `cli.collector_paused`)."""
    with collector_paused():
        started = time.process_time()
        work(*args)
        return time.process_time() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.replaycost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", type=Path, required=True, help="a recorded run (e.g. bench-data/run)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    run = args.run
    record = RunRecord.require(run)
    pairs = [(text, r) for text in record.texts for r in range(record.repeats)]
    coverage = coverage_of(run, record)
    chosen = (record.config.system, record.config.pipeline, record.cache_format)
    floor = [sys.executable, "-c", FLOOR, str(run / "responses")]
    rows: dict[str, list[float]] = {"floor": [], "whole": [], "alone": [], "first": []}
    timed(floor)  # warm: every measurement below reads from the page cache
    with tempfile.TemporaryDirectory(prefix="replaycost-") as scratch:
        first = [sys.executable, "-m", "quotefinder.sweepcmd", str(run), *BIG_GRID, "--no-plots", "--force", "--out",
                 str(Path(scratch) / "report")]
        for n in range(1, args.rounds + 1):
            rows["floor"].append(timed(floor)[0])
            rows["whole"].append(cpu(replay.replay_pairs, run, pairs, coverage, chosen))
            store = open_store(run, record.cache_format)
            served = Served(store)
            try:
                served_replays(record, pairs, coverage, served)  # every response read once, kept
                rows["alone"].append(cpu(served_replays, record, pairs, coverage, served))
            finally:
                store.close()
                del served  # (every response of the run: not kept through the next round)
            folder = index_dir(run)  # (the kept question parse stays, as in a first sweep)
            for index in folder.glob(f"*{SUFFIX}") if folder is not None else ():
                index.unlink()
            rows["first"].append(timed(first)[0])
            print(f"round {n}: floor {rows['floor'][-1]:.2f} s | replay in one process {rows['whole'][-1]:.2f} s CPU"
                  f" | the pipeline alone {rows['alone'][-1]:.2f} s CPU | reading "
                  f"{rows['whole'][-1] - rows['alone'][-1]:.2f} s CPU | first 101 x 101 sweep {rows['first'][-1]:.2f} s"
                  f" = {rows['first'][-1] / rows['floor'][-1]:.2f} x the floor", flush=True)
    median = {name: statistics.median(values) for name, values in rows.items()}
    print(f"medians: floor {median['floor']:.2f} s, replay {median['whole']:.2f} s CPU (half: {median['whole'] / 2:.2f}"
          f" s), the pipeline alone {median['alone']:.2f} s CPU, first sweep {median['first']:.2f} s = "
          f"{median['first'] / median['floor']:.2f} x the floor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
