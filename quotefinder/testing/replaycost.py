"""`python -m quotefinder.testing.replaycost --run RUN`: what a first sweep's replay costs, against the floor
(BENCHMARKS.md, issue 19 part eleven).

After one untimed floor (so that the responses are in the page cache), each round times, alternating: the floor
(`bench.FLOOR`: read, checksum and parse every response, a fresh process); the replay of every question in this
process, as a sweep's worker does it (`replay.replay_pairs`), in CPU seconds with the collector off; the same
replay with every response served from memory (`Served`: each response read once, beforehand), which leaves the
pipeline's own work (building and hashing each request, splitting snippets, checking and reading the responses,
making the curve); and a first 101 x 101 sweep, `--no-plots`, by wall (the run's replay index files removed
before it). Reading is the difference of the two replays. On two cores a replay cannot take less wall time than
half its CPU; that, with the work around it, bounds a first sweep.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..record.received import Received
from ..record.rundir import RunRecord
from ..record.store import Entry, ResponseStore, open_store
from ..sweep import replay
from ..sweep.grid import parse_axis
from ..sweep.index import INDEX_DIR, SUFFIX
from .bench import BIG_GRID, FLOOR, timed

HAS_ANSWER = BIG_GRID[1]  # the first axis of the 101 x 101 grid


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


def coverage_of(record: RunRecord) -> replay.Coverage:
    """The first axis's values a 101 x 101 sweep replays for (with the default point's), when it is recorded."""
    under_test, _ = replay.run_system(record)
    spec = under_test.axes[0]
    values = {*parse_axis(HAS_ANSWER, kind=spec).values.tolist(), float(record.config.default_point[0])}
    return {spec.name: tuple(sorted(values))} if spec.recorded else {}


def served_replays(record: RunRecord, pairs: list[replay.Pair], coverage: replay.Coverage, served: Served
                   ) -> list[replay.Replay]:
    """Every pair replayed through `served` (`replay._replay_one`, as `replay_pairs` does with the run's store)."""
    under_test, config = replay.run_system(record)
    return [replay._replay_one(served, under_test, config, coverage, text, repeat)  # type: ignore[arg-type]
            for text, repeat in pairs]


def cpu(work: Callable[..., object], *args: Any) -> float:
    """The CPU seconds `work(*args)` takes in this process, with the collector off (as a sweep runs), then on again."""
    gc.disable()
    try:
        started = time.process_time()
        work(*args)
        return time.process_time() - started
    finally:
        gc.enable()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m quotefinder.testing.replaycost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", type=Path, required=True, help="a recorded run (e.g. bench-data/run)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    run = args.run
    record = RunRecord.require(run)
    pairs = [(text, r) for text in record.texts for r in range(record.repeats)]
    coverage = coverage_of(record)
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
            try:
                served = Served(store)
                served_replays(record, pairs, coverage, served)  # every response read once, kept
                rows["alone"].append(cpu(served_replays, record, pairs, coverage, served))
            finally:
                store.close()
            for index in (run / INDEX_DIR).glob(f"*{SUFFIX}"):  # (the kept question parse stays, as in a first sweep)
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
