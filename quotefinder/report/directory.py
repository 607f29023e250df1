"""The report directory a sweep writes: every file, each written atomically, and nothing stale left.

    decision.json  grid.csv  questions.csv  comparison.csv (with a baseline)  summary.md  index.html
    heatmap-*.png  along-*.png  flips.png  risk-coverage.png
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from pathlib import Path

from ..errors import InputError
from ..storage import SHARED_FILE, write_atomic
from ..sweep.analysis import Gate, Sweep
from ..sweep.compare import Comparison
from . import figures, html
from .painter import Painter
from .summary import summary_markdown
from .tables import comparison_frame, csv_bytes, grid_frame, questions_frame
from .wording import decision_record

REPORT_FILES = ("decision.json", "grid.csv", "questions.csv", "comparison.csv", "summary.md", "index.html",
                "heatmap-*.png", "along-*.png", "flips.png", "risk-coverage.png")


def write_files(out_dir: Path, files: dict[str, bytes], plots: Sequence[str] = ()) -> None:
    """Write each file atomically (0644: reports are meant to be shared), then remove report files an
    earlier sweep left that this one did not make (a plot from before `--no-plots`, an old
    comparison), so the directory shows one sweep."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        write_atomic(out_dir / name, data, SHARED_FILE)
    made = {*files, *plots}
    for pattern in REPORT_FILES:
        for path in out_dir.glob(pattern):
            if path.name not in made:
                path.unlink()


def decision_json(result: Sweep) -> bytes:
    """`decision.json`: the decision (`wording.decision_record`), indented, keys sorted, one line at the end."""
    return (json.dumps(decision_record(result), indent=2, sort_keys=True, allow_nan=False) + "\n").encode()


def default_out(run_dir: Path) -> Path:
    """Where a sweep of `run_dir` writes its report unless told: reports/<run directory name>."""
    return Path("reports") / Path(run_dir).resolve().name


def write_report(out_dir: Path, result: Sweep, comparison: Comparison | None = None, gate: Gate | None = None,
                 plots: bool = True, painter: Painter | None = None, page: bool = True) -> None:
    """Write every file of one sweep's report into `out_dir` (created if need be); `plots=False` writes
    the tables and the summary only, `page=False` leaves out index.html. A `painter` started early draws
    the PNGs in parallel."""
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError(f"{out_dir}: is a file, not a report directory; choose another --out DIR")
    grid = grid_frame(result)
    out_dir.mkdir(parents=True, exist_ok=True)
    planned = figures.plan(result, grid, out_dir, comparison) if plots else []
    with contextlib.ExitStack() as stack:
        if planned:
            painter = painter or stack.enter_context(Painter())  # one made here is closed here
            painter.start(planned)
        files = {"decision.json": decision_json(result),
                 "grid.csv": csv_bytes(grid),
                 "questions.csv": csv_bytes(questions_frame(result, comparison), text=True)}
        if comparison is not None:
            files["comparison.csv"] = csv_bytes(comparison_frame(result, comparison))
        drawn = [(job.title, job.name) for job in planned]
        if plots and page:
            files["index.html"] = html.page(result).encode()
        files["summary.md"] = summary_markdown(result, drawn, gate.words if gate else "", comparison,
                                               page="index.html" in files).encode()
        if planned and painter is not None:
            painter.finish()
    write_files(out_dir, files, [name for _, name in drawn])
