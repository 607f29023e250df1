"""`python -m benchmarks.bench`: the scale benchmarks behind BENCHMARKS.md, in one command.

1. Sweeping at scale. Generate a synthetic question set and stand-in scenario (default 10,000
   questions), record it through the stand-in (no latency, no limit; reused on later runs), then time
   `sweep --no-plots` on a 101 x 101 grid and on a 1 x 1 grid, alternating, and report medians, their
   ratio and peak memory. Each sweep is a fresh process: loading the run is part of the time.
   Then the speed of reading: the floor (reading, checksumming and parsing every response in one process),
   a first sweep (no replay index) and repeated sweeps (the index there), as ratios to the floor.
2. Every file, fast enough to rerun without thinking. The demo sweep (`runs/ten`) with every file
   (tables, summary, PNGs, index.html) against the same sweep with `--no-plots`, alternating; then the
   10,000-question run with every file on the default grid, and a recording of the same questions with
   5 repeats of every request (from a stand-in whose repeats move answers a little; reused on later
   runs), each with the size of its index.html.
3. Recording at the rate limit. A stand-in with 200 ms latency and a 50 requests/s limit (429 with
   Retry-After beyond it); record about 1,000 requests with `--rate 50`; report the sustained rate as a
   ratio to the limit, the retries (every 429 costs one), and a sequential baseline measured in the
   same run: one request at a time, as the recipe's loop sends them.

Everything it writes goes under `--work` (default bench-data/). Timings are wall-clock and noisy on a
shared machine; compare the ratios, which are measured side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

from quotefinder import __version__
from quotefinder.core.requests import ApiRequest
from quotefinder.questions import load_questions
from quotefinder.record.cache import ResponseCache, decode_entry
from quotefinder.record.client import ApiClient, RateLimiter, RetryPolicy
from quotefinder.record.received import Received
from quotefinder.record.recorder import QuestionRun, Recorder
from quotefinder.record.rundir import RunRecord

TARGETS = {"sweep_s": 5.0, "grid_ratio": 1.3, "memory_mib": 1024.0, "rate_share": 0.9,
           "demo_s": 2.0, "every_file_s": 10.0}  # the demo's every file: under 2 s (no ratio to tables only)


def machine() -> str:
    cpu = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        found = re.search(r"model name\s*:\s*(.+)", cpuinfo.read_text())
        cpu = found.group(1).strip() if found else cpu
    memory = ""
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        found = re.search(r"MemTotal:\s*(\d+) kB", meminfo.read_text())
        memory = f", {int(found.group(1)) / 2**20:.0f} GiB RAM" if found else ""
    return (f"{cpu}, {os.cpu_count()} cores{memory}; {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}")


class StandInProcess:
    """`python -m quotefinder.standin` in its own process, so it does not share the recorder's core."""

    def __init__(self, scenario: Path, *flags: str) -> None:
        command = [sys.executable, "-m", "quotefinder.standin", str(scenario), "--port", "0", *flags]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.process.stdout is not None and self.process.stderr is not None  # both are pipes
        line = self.process.stdout.readline()
        found = re.search(r"at (http://\S+)", line)
        if not found:
            self.process.kill()
            raise RuntimeError(f"the stand-in did not start: {line}{self.process.stderr.read()}")
        self.base_url = found.group(1)

    @property
    def env(self) -> dict[str, str]:
        """The environment that points eval.py at this stand-in."""
        return {**os.environ, "PERPLEXITY_API_KEY": "bench", "PERPLEXITY_BASE_URL": self.base_url}

    def __enter__(self) -> StandInProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def timed(command: list[str], env: dict[str, str] | None = None,
          samples: list[tuple[float, float]] | None = None) -> tuple[float, float]:
    """Run `command` to its end; return (wall seconds, its peak RSS in MiB). Exit 0 or 1 is success.

    With `samples`, also record (seconds, RSS MiB) every quarter second while it runs.
    """
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    if samples is not None:
        threading.Thread(target=_sample_rss, args=(process.pid, started, samples), daemon=True).start()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        error = process.stderr.read().decode() if process.stderr else ""
        raise RuntimeError(f"{' '.join(command)} failed: {error[-2000:]}")
    return elapsed, usage.ru_maxrss / 1024


def _sample_rss(pid: int, started: float, samples: list[tuple[float, float]]) -> None:
    status = Path(f"/proc/{pid}/status")
    while True:
        try:
            found = re.search(r"VmRSS:\s*(\d+) kB", status.read_text())
        except OSError:
            return
        if found:
            samples.append((time.perf_counter() - started, int(found.group(1)) / 1024))
        time.sleep(0.25)


AS_FAST_AS_IT_GOES = ("--rate", "0", "--concurrency", "32")  # recording the sets: no limit


def eval_command(questions: Path, run: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "quotefinder.evalcmd", str(questions), "--run", str(run), *options]


def prepare(work: Path, count: int, seed: int) -> tuple[Path, Path, Path, tuple[float, float, float] | None]:
    """The generated set and its recorded run, reusing both when they match; the recording's seconds,
    peak memory and memory a tenth of the way through (None when reused)."""
    meta = {"questions": count, "seed": seed, "version": __version__}
    questions, scenario, run = work / "questions.yaml", work / "scenario.json", work / "run"
    marker = work / "meta.json"
    reusable = marker.exists() and json.loads(marker.read_text()) == meta
    recorded = RunRecord.load(run) if reusable else None
    if recorded is not None and recorded.complete:
        measured = work / "recording.json"  # what recording it cost, measured when it was made
        return questions, scenario, run, tuple(json.loads(measured.read_text())) if measured.exists() else None
    shutil.rmtree(work, ignore_errors=True)
    print(f"generating {count} synthetic questions ...", flush=True)
    # In a child process: this one must stay small, or every later child would report its peak memory
    # (Linux carries a process's high-water mark into the children it forks).
    subprocess.run([sys.executable, "-m", "quotefinder.standin.synthetic", str(work), str(count), "--seed", str(seed)],
                   check=True, stdout=subprocess.DEVNULL)
    print("recording them through the stand-in (no latency, no limit) ...", flush=True)
    with StandInProcess(scenario) as standin:
        samples: list[tuple[float, float]] = []
        seconds, peak = timed(eval_command(questions, run, *AS_FAST_AS_IT_GOES), standin.env, samples)
    marker.write_text(json.dumps(meta))
    early = [rss for at, rss in samples if at >= seconds / 10] or [peak]
    (work / "recording.json").write_text(json.dumps([seconds, peak, early[0]]))
    return questions, scenario, run, (seconds, peak, early[0])


def with_repeats(questions: Path, scenario: Path, work: Path, repeats: int) -> Path:
    """The same questions recorded with `repeats` repeats of every request, from a stand-in whose repeats
    move answers by up to 0.02 (as a real API's would, a little); reused when complete."""
    run = work / f"run-{repeats}-repeats"
    recorded = RunRecord.load(run) if run.exists() else None
    if recorded is not None and recorded.complete and recorded.config.repeats == repeats:
        return run
    shutil.rmtree(run, ignore_errors=True)
    moving = work / f"scenario-{repeats}-repeats.json"
    moving.write_text(json.dumps({**json.loads(scenario.read_text()), "repeat_jitter": 0.02}))
    print(f"recording them again with {repeats} repeats of every request ...", flush=True)
    with StandInProcess(moving) as standin:
        timed(eval_command(questions, run, *AS_FAST_AS_IT_GOES, "--repeats", str(repeats)), standin.env)
    return run


def every_file(run: Path, out: Path, repeats: int) -> dict[str, float]:
    """Median wall seconds of the default sweep with every file and with `--no-plots` (alternating, fresh
    processes), the larger peak memory, and the size of the index.html it writes."""
    sweeps = alternating({"all": [str(run), "--out", str(out / "all")],
                          "tables": [str(run), "--out", str(out / "tables"), "--no-plots"]}, repeats)
    page = out / "all" / "index.html"
    return {"all": sweeps["all"][0], "tables": sweeps["tables"][0], "memory": max(m for _, m in sweeps.values()),
            "page": page.stat().st_size, **interaction(page)}


def interaction(page: Path) -> dict[str, float]:
    """Milliseconds `page` takes in headless Chromium (Debian's, driven by Playwright; nothing without
    them) to open and show its first list, and then to answer a click on a cell, a filter by outcome and a
    search: each from the event to the list rebuilt and laid out."""
    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {}
    if chromium is None:
        return {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--headless=new", "--no-sandbox"])
        view = browser.new_page(viewport={"width": 1400, "height": 1000})
        started = time.perf_counter()
        view.goto(page.resolve().as_uri())
        view.wait_for_selector("#questions-body tr")
        opened = (time.perf_counter() - started) * 1000
        click, filtered, searched = view.evaluate("""() => {
            const laidOut = () => document.getElementById("questions-body").getBoundingClientRect();
            const timed = (act) => {
                const start = performance.now();
                act();
                laidOut();
                return performance.now() - start;
            };
            const report = window.quotefinderReport;
            const [rows, columns] = [report.geometry.rows, report.geometry.columns];
            return [
                timed(() => report.select(Math.floor(rows / 3), Math.floor(columns / 2))),
                timed(() => document.querySelector("#filters button:nth-child(2)").click()),
                timed(() => { const box = document.getElementById("search"); box.value = "river";
                              box.dispatchEvent(new Event("input")); }),
            ];
        }""")
        browser.close()
    return {"open_ms": opened, "click_ms": click, "filter_ms": filtered, "search_ms": searched}


def alternating(sweeps: dict[str, list[str]], repeats: int) -> dict[str, tuple[float, float]]:
    """Each sweep (its arguments after `sweep`) `repeats` times, in turn, each in a fresh process: the
    median wall seconds and the largest peak RSS (MiB) of each. `--force`: the reports go to the benchmark's
    own scratch directories, which a benchmark run by an older version may have left without a manifest."""
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in sweeps}
    for _ in range(repeats):
        for name, arguments in sweeps.items():
            samples[name].append(timed([sys.executable, "-m", "quotefinder.sweepcmd", *arguments, "--force"]))
    return {name: (statistics.median(s for s, _ in got), max(m for _, m in got)) for name, got in samples.items()}


def sweep_timings(run: Path, work: Path, repeats: int) -> dict[str, tuple[float, float]]:
    """Median wall seconds and the largest peak RSS (MiB) per grid, alternating the two grids."""
    grids = {"101 x 101": ("0:1:0.01", "0:1:0.01"), "1 x 1": ("0.3:0.3:0.1", "0.6:0.6:0.1")}
    return alternating({name: [str(run), "--no-plots", "--has-answer", h, "--answer", a, "--out", str(work / "report")]
                        for name, (h, a) in grids.items()}, repeats)


def sustained_rate(run: Path) -> tuple[int, float]:
    """(responses, responses per second between the first and the last one received)."""
    received = [decode_entry(path.read_bytes(), path)["received_at"] for path in (run / "responses").rglob("*.json")]
    times = sorted(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() for stamp in received)
    return len(times), (len(times) - 1) / (times[-1] - times[0])


class OneAtATime:
    """A client that lets one request out at a time: the recipe's sequential loop."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client
        self.lock = asyncio.Lock()

    async def send(self, request: ApiRequest) -> Received:
        async with self.lock:
            return await self.client.send(request)


async def sequential(questions: Path, run: Path, base_url: str) -> tuple[int, float]:
    """Record `questions` one request at a time; (requests, seconds)."""
    recorder = Recorder(ResponseCache(run), {"has_answer": [(0.0, 1.0), 0.3]})
    items = [QuestionRun(q) for q in load_questions(questions).questions]
    async with ApiClient(base_url, "bench", retry=RetryPolicy(retries=8), limiter=RateLimiter(0)) as client:
        started = time.perf_counter()
        await recorder.record(items, OneAtATime(client), concurrency=1)
        return recorder.tally.sent, time.perf_counter() - started


def subset(questions: Path, count: int, target: Path) -> Path:
    """The first `count` questions of a generated set, as their own file."""
    text = questions.read_text()
    starts = [m.start() for m in re.finditer(r"^  - id: ", text, re.MULTILINE)]
    end = starts[count] if count < len(starts) else len(text)
    target.write_text(text[:end])
    return target


def recording_rate(questions: Path, scenario: Path, work: Path) -> dict[str, float]:
    limit, latency = 50, 0.2
    flags = ("--latency", str(latency), "--rate-limit", str(limit), "--burst", "10")
    results: dict[str, float] = {}
    with StandInProcess(scenario, *flags) as standin:
        run = work / "rate-run"
        shutil.rmtree(run, ignore_errors=True)
        subset_file = subset(questions, 115, work / "rate-questions.yaml")
        _, memory = timed(eval_command(subset_file, run, "--rate", str(limit), "--concurrency", "8"), standin.env)
        record = RunRecord.require(run)
        count, rate = sustained_rate(run)
        results.update(requests=count, rate=rate, retries=record.requests.retries, memory=memory,
                       failed=record.requests.failed, limit=limit, latency=latency)
        baseline_run = work / "rate-baseline"
        shutil.rmtree(baseline_run, ignore_errors=True)
        sent, seconds = asyncio.run(sequential(subset(questions, 12, work / "baseline-questions.yaml"), baseline_run,
                                               standin.base_url))
        results.update(baseline_requests=sent, baseline_rate=sent / seconds)
    return results


FLOOR = ("import pathlib, sys\nfrom quotefinder.record.cache import decode_entry\n"
         "for path in pathlib.Path(sys.argv[1]).rglob('*.json'):\n    decode_entry(path.read_bytes(), path)\n")
READING_TARGETS = {"first": 1.5, "repeated": 0.5, "grid": 1.2}  # issue 19: x the floor; 101 x 101 / 1 x 1
BIG_GRID = ("--has-answer", "0:1:0.01", "--answer", "0:1:0.01")  # 101 x 101
SMALL_GRID = ("--has-answer", "0.3:0.3:0.1", "--answer", "0.6:0.6:0.1")  # 1 x 1


def indexes_of(run: Path) -> list[Path]:
    """Where a run's replay index may be: in the user's cache (`index.index_dir`, this code) and in the run (the
    code before it kept it there; `sidebyside` times both)."""
    from quotefinder.sweep.index import index_dir

    return [path for path in (index_dir(run), run / "replay-index") if path is not None]


def reading_round(big: list[str], small: list[str], indexes: list[Path]) -> dict[str, tuple[float, float]]:
    """One round of the sweeps `reading` times, each a fresh process, as (seconds, peak MiB): a first 101 x 101
    sweep (`big`; `index` removed and the 1 x 1 grid's rebuilt first, so that only the 101 x 101 one is missing), a
    repeated one and a repeated 1 x 1 (`small`)."""
    for index in indexes:
        shutil.rmtree(index, ignore_errors=True)
    timed(small)
    return {"first": timed(big), "repeated": timed(big), "small": timed(small)}


def reading(run: Path, work: Path, repeats: int) -> dict[str, float]:
    """Sweeps at the speed of reading, alternating, each a fresh process, medians: the floor (read, checksum and
    parse every response, in one process, warm), a first sweep (no replay index: removed before each), and
    repeated sweeps (the index there) of 101 x 101 and of 1 x 1, all `--no-plots`."""
    indexes = indexes_of(run)
    out = ["--no-plots", "--out", str(work / "reading-report"), "--force"]
    big = [sys.executable, "-m", "quotefinder.sweepcmd", str(run), *BIG_GRID, *out]
    small = [sys.executable, "-m", "quotefinder.sweepcmd", str(run), *SMALL_GRID, *out]
    floor = [sys.executable, "-c", FLOOR, str(run / "responses")]
    timed(floor)  # warm: every measurement below reads from the page cache
    timed(small)  # the 1 x 1 coverage's index
    samples: dict[str, list[float]] = {"floor": [], "first": [], "repeated": [], "small": []}
    memory = 0.0
    for _ in range(repeats):
        samples["floor"].append(timed(floor)[0])
        found = reading_round(big, small, indexes)
        for name, (seconds, _) in found.items():
            samples[name].append(seconds)
        memory = max(memory, found["first"][1], found["repeated"][1])
    medians = {name: statistics.median(values) for name, values in samples.items()}
    medians["memory"] = memory
    return medians


def reading_rows(found: dict[str, float]) -> list[str]:
    floor = found["floor"]
    rows = [f"| read, checksum and parse every response, one process, warm (the floor) | {floor:.2f} s | | |"]
    for name, words in (("first", "first sweep 101 x 101 (no replay index yet), `--no-plots`"),
                        ("repeated", "repeated sweep 101 x 101 (the replay index there), `--no-plots`")):
        ratio = found[name] / floor
        rows.append(f"| {words} | {found[name]:.2f} s = {ratio:.2f} x the floor | <= {READING_TARGETS[name]:g} x | "
                    f"{_met(ratio <= READING_TARGETS[name])} |")
    grid = found["repeated"] / found["small"]
    rows += [f"| repeated sweep 1 x 1 | {found['small']:.2f} s | | |",
             f"| repeated 101 x 101 / repeated 1 x 1 | {grid:.2f} | <= {READING_TARGETS['grid']:g} | "
             f"{_met(grid <= READING_TARGETS['grid'])} |",
             f"| peak memory of those sweeps | {found['memory']:.0f} MiB | | |"]
    return rows


def _met(ok: bool) -> str:
    return "yes" if ok else "NO"


def _size(size: float) -> str:
    return f"{size / 1024:.0f} KB" if size < 1024**2 else f"{size / 1024**2:.1f} MB"


def report(args: argparse.Namespace, count_responses: int, recorded: tuple[float, float, float] | None,
           sweeps: dict[str, tuple[float, float]], rate: dict[str, float] | None,
           pages: dict[str, dict[str, float]] | None = None, read: dict[str, float] | None = None) -> str:
    big, small = sweeps["101 x 101"], sweeps["1 x 1"]
    ratio = big[0] / small[0]
    lines = [
        f"Machine: {machine()}.",
        f"Command: `python -m benchmarks.bench --questions {args.questions} --repeats {args.repeats}` "
        f"(quotefinder {__version__}); synthetic data, recorded through the stand-in.",
        "",
        "| Measure | Result | Target | Met |",
        "|---|---:|---:|:---:|",
        f"| load + sweep 101 x 101, `--no-plots`, {args.questions:,} questions ({count_responses:,} responses), "
        f"median of {args.repeats} | {big[0]:.2f} s | <= {TARGETS['sweep_s']:g} s | "
        f"{'yes' if big[0] <= TARGETS['sweep_s'] else 'NO'} |",
        f"| load + sweep 1 x 1, same run | {small[0]:.2f} s | | |",
        f"| 101 x 101 / 1 x 1 | {ratio:.2f} | <= {TARGETS['grid_ratio']:g} | "
        f"{'yes' if ratio <= TARGETS['grid_ratio'] else 'NO'} |",
        f"| peak memory of a sweep | {max(big[1], small[1]):.0f} MiB | < {TARGETS['memory_mib']:.0f} MiB | "
        f"{'yes' if max(big[1], small[1]) < TARGETS['memory_mib'] else 'NO'} |",
    ]
    if read:
        lines += reading_rows(read)
    if pages:
        demo, scale = pages["demo"], pages["scale"]
        ratio = demo["all"] / demo["tables"]
        lines += [
            f"| demo sweep (`runs/ten`, 21 x 21), every file: tables, summary, PNGs, index.html, median of "
            f"{args.repeats} | {demo['all']:.2f} s | < {TARGETS['demo_s']:g} s | "
            f"{_met(demo['all'] < TARGETS['demo_s'])} |",
            f"| ... the same sweep with `--no-plots` (tables and summary) | {demo['tables']:.2f} s | | |",
            f"| ... every file / `--no-plots` | {ratio:.2f} | | |",
            f"| ... its index.html | {_size(demo['page'])} | | |",
            f"| {args.questions:,} questions, default grid (21 x 21), every file, median of {args.repeats} | "
            f"{scale['all']:.2f} s (`--no-plots` {scale['tables']:.2f} s) | < {TARGETS['every_file_s']:g} s | "
            f"{_met(scale['all'] < TARGETS['every_file_s'])} |",
            f"| ... its index.html / peak memory | {_size(scale['page'])} / {scale['memory']:.0f} MiB | | |",
        ]
        if "open_ms" in scale:
            lines.append(
                f"| ... in headless Chromium: open it / click a cell / filter by outcome / search (to the list "
                f"laid out) | {scale['open_ms']:.0f} / {scale['click_ms']:.0f} / {scale['filter_ms']:.0f} / "
                f"{scale['search_ms']:.0f} ms | | |")
        if "repeats" in pages:
            many = pages["repeats"]
            lines += [
                f"| {args.questions:,} questions x {args.page_repeats} repeats, every file, median of "
                f"{args.repeats} | {many['all']:.2f} s (`--no-plots` {many['tables']:.2f} s) | | |",
                f"| ... its index.html / peak memory | {_size(many['page'])} / {many['memory']:.0f} MiB | | |",
            ]
    if recorded is not None:
        seconds, peak, early = recorded
        lines += [
            f"| recording all of them, no latency or limit (`--rate 0 --concurrency 32`) | "
            f"{seconds:.0f} s ({count_responses / seconds:.0f} requests/s) | | |",
            f"| ... memory a tenth of the way through / at its peak | {early:.0f} MiB / {peak:.0f} MiB | flat: "
            f"peak within 1.25x | {'yes' if peak <= 1.25 * early else 'NO'} |",
        ]
    if rate:
        share = rate["rate"] / rate["limit"]
        lines += [
            f"| recording {rate['requests']:.0f} requests at 200 ms latency under a {rate['limit']:.0f}/s limit "
            f"(`--rate {rate['limit']:.0f} --concurrency 8`), sustained | {rate['rate']:.1f} requests/s = "
            f"{share:.0%} of the limit | >= {TARGETS['rate_share']:.0%} | "
            f"{'yes' if share >= TARGETS['rate_share'] else 'NO'} |",
            f"| ... requests that met a 429 (retries) / failed | {rate['retries']:.0f} / {rate['failed']:.0f} "
            "| 0 / 0 | "
            f"{'yes' if rate['retries'] == 0 and rate['failed'] == 0 else 'NO'} |",
            f"| ... peak memory of that recording | {rate['memory']:.0f} MiB | | |",
            f"| sequential baseline, one request at a time ({rate['baseline_requests']:.0f} requests) | "
            f"{rate['baseline_rate']:.1f} requests/s; concurrent / sequential = "
            f"{rate['rate'] / rate['baseline_rate']:.1f}x | | |",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=10_000, help="size of the synthetic set (default 10000)")
    parser.add_argument("--repeats", type=int, default=3, help="timed sweeps per grid (default 3)")
    parser.add_argument("--work", type=Path, default=Path("bench-data"), help="scratch directory (default bench-data)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-rate", action="store_true", help="skip the recording-rate benchmark (about 40 s)")
    parser.add_argument("--page-repeats", type=int, default=5, metavar="N",
                        help="also record the set with N repeats of every request and time its report (default "
                             "5, about 20 minutes the first time; 0 skips it)")
    parser.add_argument("--demo", type=Path, default=Path("runs/ten"), help="the demo run (default runs/ten)")
    parser.add_argument("--report", type=Path, help="also write the results table (Markdown) here")
    parser.add_argument("--only-sweeps", action="store_true",
                        help="time the `--no-plots` sweeps and the speed of reading only (for a 100,000-question run)")
    args = parser.parse_args(argv)
    questions, scenario, run, recorded = prepare(args.work, args.questions, args.seed)
    responses = RunRecord.require(run).responses
    print(f"timing sweeps of {responses:,} responses ...", flush=True)
    sweeps = sweep_timings(run, args.work, args.repeats)
    print("timing sweeps against the speed of reading ...", flush=True)
    read = reading(run, args.work, args.repeats)
    if args.only_sweeps:
        table = report(args, responses, recorded, sweeps, None, None, read)
        print(table)
        if args.report:
            args.report.write_text(table)
        return 0
    many = with_repeats(questions, scenario, args.work, args.page_repeats) if args.page_repeats > 1 else None
    print("timing sweeps that write every file ...", flush=True)
    pages = {"demo": every_file(args.demo, args.work / "demo-report", args.repeats),
             "scale": every_file(run, args.work / "scale-report", args.repeats)}
    if many is not None:
        pages["repeats"] = every_file(many, args.work / "repeats-report", args.repeats)
    rate = None
    if not args.skip_rate:
        print("recording at the rate limit ...", flush=True)
        rate = recording_rate(questions, scenario, args.work)
    table = report(args, responses, recorded, sweeps, rate, pages, read)
    print(table)
    if args.report:
        args.report.write_text(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
