"""The report directory a sweep writes: whole or absent, and nothing of the user's ever removed.

    decision.json  grid.csv  questions.csv  comparison.csv (with a baseline)  summary.md  index.html
    heatmap-*.png  flips.png  risk-coverage.png (or .svg, .pdf: `--figures`)  report.json (the manifest, last)

A sweep writes every file into a staging directory inside DIR (`DIR/.sweep-staging-PID-RANDOM`, so on the same
file system even when DIR is a mount point, and writable wherever DIR is), each one flushed to disk. The staging
directory is made fresh (`mkdtemp`: a new name, created exclusively), never reused: whatever already lies at a name
a sweep would use (a link a commit planted, someone's folder) is never followed, and is removed only when it is a
real directory a killed sweep left (its process gone), one flat level, links unlinked, never followed. Then, holding
a lock on DIR, with Ctrl+C and SIGTERM held back until it is done, it swaps them in: `report.json` marked
incomplete (the files coming and the files going), the previous report's files removed, the new ones renamed
in, and `report.json` rewritten, complete, listing every file with its SHA-256. `kill -9` at any moment leaves
the previous report, the new one, or one that `report.json` marks incomplete, which `whole_report` (every
reader's check) refuses and the next sweep replaces; that sweep also tidies the staging directories and
temporary files killed sweeps left.

Only files a previous `report.json` lists are ever removed or replaced: the user's own files in DIR stay,
whatever their names. A directory that holds files but no manifest (so whose files are whose cannot be told)
is refused unless `force`, which replaces the files of the report's names there and touches nothing else. A
listed file whose bytes are no longer the ones the manifest records (the user edited it) is refused too unless
`force`, and a `report.json` that is not a manifest of ours is refused even with `force` (it would be
overwritten).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from ..core.errors import InputError, ReportError
from ..core.plugin import AxisSpec
from ..core.storage import SHARED_FILE, TEMPORARY, linked, pid_alive, read_file, write_atomic
from ..sweep.analysis import Gate, Sweep
from ..sweep.compare import Comparison
from ..sweep.drift import Drift
from ..sweep.monitor import Monitor
from ..sweep.systems import Systems
from . import drift as drifting
from . import figures, html, versus
from .summary import summary_markdown
from .systems import outcomes_frame, systems_decision, systems_frame
from .tables import comparison_table, csv_bytes, grid_table, questions_table
from .wording import decision_record, gate_words

MANIFEST = "report.json"
MANIFEST_FORMAT = "quotefinder-report/1"
REPORT_FILES = ("decision.json", "grid.csv", "questions.csv", "comparison.csv", "summary.md", "index.html",
                "systems.csv", "heatmap-*.png", "along-*.png", "flips.png", "risk-coverage.png", "drift.csv",
                "drift-stages.csv", "monitor.csv",  # along-*.png: an older report's, still recognised
                "heatmap-*.svg", "flips.svg", "risk-coverage.svg", "heatmap-*.pdf", "flips.pdf", "risk-coverage.pdf")
STAGING_PREFIX = ".sweep-staging-"  # DIR/.sweep-staging-PID-RANDOM: a sweep's files before they are swapped in
_DIGEST = re.compile(r"[0-9a-f]{64}")


def is_report_file(name: str) -> bool:
    """Whether `name` is the name of a file a report can hold (the manifest aside)."""
    return any(fnmatchcase(name, pattern) for pattern in REPORT_FILES)


MAX_MANIFEST_BYTES = 1 << 20


def sha256_of(path: Path) -> str:
    """The SHA-256 of the report file at `path`: a regular file, never read through a link (a report's files are
    the sweep's own; a link a commit put there, to /dev/zero say, is ELOOP) nor a FIFO or device (EINVAL)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with open(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        return hashlib.file_digest(handle, "sha256").hexdigest()


@dataclass(frozen=True)
class Manifest:
    """`report.json`, typed: every file of the report with its SHA-256 (`files`), and `complete`. While a swap
    is under way (`complete` false) it also lists the previous report's files (`replacing`), so that whoever
    comes next knows every file of the two that is the harness's."""

    files: dict[str, str]
    complete: bool = True
    replacing: dict[str, str] = field(default_factory=dict)

    @property
    def ours(self) -> set[str]:
        """Every file this manifest says the harness wrote (or was writing)."""
        return {*self.files, *self.replacing}

    def encode(self) -> bytes:
        data: dict[str, Any] = {"format": MANIFEST_FORMAT, "complete": self.complete,
                                "files": dict(sorted(self.files.items()))}
        if not self.complete:
            data["replacing"] = dict(sorted(self.replacing.items()))
        return (json.dumps(data, indent=2) + "\n").encode()

    def save(self, out_dir: Path) -> None:
        write_atomic(out_dir / MANIFEST, self.encode(), SHARED_FILE)

    @classmethod
    def load(cls, out_dir: Path) -> Manifest | None:
        """The manifest in `out_dir`, None when there is none; `ReportError` when its `report.json` is not one
        (another program's, or edited: it may only list files of a report's names)."""
        path = Path(out_dir) / MANIFEST
        try:
            data = json.loads(read_file(path, MAX_MANIFEST_BYTES, follow=False))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, RecursionError) as error:
            detail = "nested too deeply" if isinstance(error, RecursionError) else error
            raise ReportError(f"{path} is not a report manifest ({detail})") from None
        if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
            raise ReportError(f"{path} is not a report manifest of this version ({MANIFEST_FORMAT})")
        complete, files, replacing = data.get("complete"), data.get("files"), data.get("replacing", {})
        lists = (files, replacing)
        if not isinstance(complete, bool) or not all(
                isinstance(found, dict) and all(isinstance(name, str) and is_report_file(name) and "/" not in name
                                                and isinstance(digest, str) and _DIGEST.fullmatch(digest)
                                                for name, digest in found.items()) for found in lists):
            raise ReportError(f"{path} is not a report manifest: `complete` must be true or false, and `files` "
                              "may list only a report's files, each with its SHA-256")
        assert isinstance(files, dict) and isinstance(replacing, dict)  # checked above, for the type checker
        return cls(dict(files), complete, dict(replacing))


def whole_report(out_dir: Path) -> Manifest:
    """The manifest of the whole report in `out_dir`; `ReportError` saying why not when `report.json` is missing
    or marked incomplete (a sweep was stopped while swapping it in), or a file it lists is missing or changed.
    Every reader of a report directory checks this first (`.ci/run` does)."""
    out_dir = Path(out_dir)
    manifest = Manifest.load(out_dir)
    if manifest is None:
        raise ReportError(f"{out_dir} holds no report manifest ({MANIFEST}): it is not a report sweep.py wrote whole")
    if not manifest.complete:
        raise ReportError(f"{out_dir}: the report is incomplete ({MANIFEST} says so): a sweep was stopped while "
                          "writing it; sweep again")
    for name, digest in sorted(manifest.files.items()):
        path = out_dir / name
        try:
            found = sha256_of(path)
        except FileNotFoundError:
            raise ReportError(f"{path} is missing: {MANIFEST} lists it; sweep again") from None
        except OSError as error:
            raise ReportError(f"{path} is not a report file ({error.strerror}): {MANIFEST} lists a file there; "
                              "sweep again") from None
        if found != digest:
            raise ReportError(f"{path} does not match {MANIFEST}: it changed after the sweep wrote it; sweep again")
    return manifest


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """Hold an exclusive lock on `directory` (one swap at a time; another sweep waits its turn)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Within the block, Ctrl+C and SIGTERM wait; they act as it ends, so that they never cut a swap short."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = {signum: signal.signal(signum, lambda number, frame: caught.append(number))
                for signum in (signal.SIGINT, signal.SIGTERM)}  # the handlers Python had, to put back
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
    if caught:
        signal.raise_signal(caught[0])


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _changed(path: Path, digests: set[str | None]) -> bool:
    """Whether a file a manifest lists is there and none of what was written (a missing one is not changed; a link,
    a FIFO or a device there is)."""
    try:
        return sha256_of(path) not in digests
    except FileNotFoundError:
        return False
    except OSError:
        return True


_STAGING = re.compile(re.escape(STAGING_PREFIX) + r"(?P<pid>\d+)(?:-[A-Za-z0-9_]+)?")


def _staging_pid(name: str) -> int | None:
    """The process number in a staging directory's name (`.sweep-staging-PID` or `.sweep-staging-PID-RANDOM`),
    None for any other name."""
    found = _STAGING.fullmatch(name)
    return int(found["pid"]) if found else None


def _remove_flat(directory: Path) -> None:
    """Remove a staging directory: the entries in it that are not directories (a link is unlinked, never
    followed), then itself (left alone if it holds anything else). `directory` itself is opened without following
    a link (`O_NOFOLLOW`): a link at its name is left as it is, and so is everything it points to."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:  # gone, not a directory, or a link (ELOOP): nothing of ours to remove
        return
    try:
        with os.scandir(fd) as entries:
            for entry in entries:
                if not entry.is_dir(follow_symlinks=False):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(entry.name, dir_fd=fd)
    finally:
        os.close(fd)
    with contextlib.suppress(OSError):
        os.rmdir(directory)  # a link put here meanwhile is not a directory: rmdir refuses it (ENOTDIR)


class ReportDir:
    """Where one sweep's report goes, by the rules of the module docstring: `check` refuses a directory the
    sweep may not write (early, before anything is replayed), `stage` makes the directory to write the files
    into, `commit` swaps them in, `discard` removes what is left of the staging. `written` says whether the
    report was swapped in."""

    def __init__(self, path: Path, force: bool = False) -> None:
        self.path = Path(path)
        self.force = force
        self.written = False
        self.staging: Path | None = None

    def _staging_prefix(self) -> tuple[Path, str]:
        return self.path.resolve(), STAGING_PREFIX

    def check(self) -> Manifest | None:
        """The previous report's manifest (None when there is none); `InputError` for a path that is a file, or
        a directory of files without a manifest (unless `force`)."""
        if (link := linked(self.path)) is not None:
            raise InputError(f"{self.path}: {link} is a symbolic link (to {os.readlink(link)}), and a sweep writes "
                             "no report through a link it did not make: give the folder it leads to as --out DIR, "
                             "or remove the link")
        if self.path.exists() and not self.path.is_dir():
            raise InputError(f"{self.path}: is a file, not a report directory; choose another --out DIR")
        if not self.path.is_dir():
            return None
        try:
            manifest = Manifest.load(self.path)
        except ReportError as error:  # not ours, or not ours any more: --force would overwrite it, so never
            raise InputError(f"{error}: so sweep.py cannot tell its own files in {self.path} from yours; move that "
                             f"{MANIFEST} away, or choose a new or empty --out DIR") from None
        if manifest is None and not self.force and any(not TEMPORARY.fullmatch(p.name) and _staging_pid(p.name) is None
                                                       for p in self.path.iterdir()):
            raise InputError(f"{self.path} holds files but no report manifest ({MANIFEST}), so sweep.py cannot tell "
                             "its own files there from yours: choose a new or empty --out DIR, or pass --force to "
                             "write the report there anyway (files with the report's names are replaced; nothing "
                             "else is touched)")
        return manifest

    def stage(self) -> Path:
        """A new, empty staging directory inside the report directory (created if need be), for this sweep's
        files: made by `mkdtemp` under a name no one has used (`.sweep-staging-PID-RANDOM`), so nothing already
        there is ever reused, followed or removed."""
        parent, prefix = self._staging_prefix()
        parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=parent))
        os.chmod(staging, 0o755)  # (mkdtemp makes it 0700; the files are the report's, shared)
        self.staging = staging
        return staging

    def discard(self) -> None:
        if self.staging is not None:
            _remove_flat(self.staging)
            self.staging = None

    def _tidy(self) -> None:
        """Remove what killed sweeps left in DIR: their staging directories and temporary files."""
        parent, _ = self._staging_prefix()
        for entry in parent.iterdir():
            pid = _staging_pid(entry.name)
            if pid is not None and entry != self.staging and not pid_alive(pid):
                _remove_flat(entry)  # (a link at that name is left alone: `_remove_flat` never follows one)
        for entry in self.path.iterdir():
            found = TEMPORARY.fullmatch(entry.name)
            if found and (is_report_file(found["name"]) or found["name"] == MANIFEST) and entry.is_file():
                with contextlib.suppress(FileNotFoundError):
                    entry.unlink()

    def commit(self, names: Sequence[str]) -> None:
        """Swap the staged files `names` in as the report (see the module docstring); `InputError`, with nothing
        changed, when DIR holds a file of one of those names that no manifest lists (unless `force`)."""
        assert self.staging is not None, "stage() first"
        staging = self.staging
        digests = {name: sha256_of(staging / name) for name in names}
        self.path.mkdir(parents=True, exist_ok=True)
        with _locked(self.path), _interrupts_held():
            previous = self.check()  # again: the directory may have changed while the sweep worked
            self._tidy()
            ours = previous.ours if previous else set()
            theirs = sorted(name for name in digests if os.path.lexists(self.path / name) and name not in ours)
            # a listed file changed since it was written may be the user's now (after a swap cut short, a file
            # may hold either report's bytes: nothing can be told, and nothing is refused)
            listed = previous.files if previous is not None and previous.complete else {}
            edited = sorted(name for name in listed if _changed(self.path / name, {listed[name]}))
            if edited and not self.force:
                raise InputError(f"{self.path / edited[0]} was changed since sweep.py wrote it (its SHA-256 is not "
                                 f"the one {MANIFEST} lists), so it may be yours now: move it away, choose another "
                                 "--out DIR, or pass --force to replace it")
            if theirs and not self.force:
                raise InputError(f"{self.path / theirs[0]} is not a file sweep.py wrote ({MANIFEST} does not list it), "
                                 "so it is yours: move it away, choose another --out DIR, or pass --force to "
                                 "replace it")
            going = {**(previous.replacing if previous else {}), **(previous.files if previous else {})}
            Manifest(digests, complete=False, replacing={n: d for n, d in going.items() if n not in digests}
                     ).save(self.path)
            for name in sorted(ours - set(digests)):
                with contextlib.suppress(FileNotFoundError):
                    (self.path / name).unlink()
            for name in sorted(digests):
                os.replace(staging / name, self.path / name)
            _fsync_dir(self.path)
            Manifest(digests).save(self.path)
            self.written = True


def decision_json(result: Sweep, drift: Drift | None = None) -> bytes:
    """`decision.json`: the decision (`wording.decision_record`; a refresh's `drift` under its key), indented, keys
    sorted, one line at the end."""
    record = decision_record(result)
    if drift is not None:
        record["drift"] = drifting.drift_record(drift, result)
    return _json(record)


def _json(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, indent=2, sort_keys=True, allow_nan=False) + "\n").encode()


def inside_a_run(out: Path, runs: Sequence[Path | None]) -> str:
    """Why a report cannot go to `out` ('' when it can): `out` is one of `runs` (run directories) or lies inside one,
    where a report would mix with the run's evidence."""
    where = Path(out).resolve()
    for run in runs:
        if run is not None and where.is_relative_to(Path(run).resolve()):
            return (f"{out} is inside the run directory {run}: a report written there would mix with the run's "
                    "evidence; choose a directory outside it")
    return ""


def default_out(*run_dirs: Path) -> Path:
    """Where a sweep of `run_dir` writes its report unless told: reports/<run directory name>; of several runs
    compared, reports/<first>-vs-<second>..."""
    return Path("reports") / "-vs-".join(Path(run_dir).resolve().name for run_dir in run_dirs)


def write_report(out: ReportDir | Path, result: Sweep, comparison: Comparison | None = None,
                 gate: Gate | None = None, plots: bool = True, page: bool = True,
                 drift: Drift | None = None, formats: Sequence[str] = ("png",)) -> None:
    """Write every file of one sweep's report into `out` (a `ReportDir`, or a path: `ReportDir(path)`), whole
    or not at all; `plots=False` writes the tables and the summary only, `page=False` leaves out index.html,
    `formats` are the files of each figure (`figures.FORMATS`: png, svg, pdf).
    A refresh's `drift` adds drift.csv, drift-stages.csv, the summary's opening "Drift" section and
    decision.json's `drift`."""
    target = out if isinstance(out, ReportDir) else ReportDir(out)
    target.check()
    grid = grid_table(result)
    staging = target.stage()
    try:
        planned = figures.plan(result, grid, staging, comparison, formats) if plots else []
        files = {"decision.json": decision_json(result, drift),
                 "grid.csv": csv_bytes(grid),
                 "questions.csv": csv_bytes(questions_table(result, comparison), text=True)}
        if drift is not None:
            files["drift.csv"] = csv_bytes(drifting.drift_frame(drift), text=True)
            files["drift-stages.csv"] = csv_bytes(drifting.stages_frame(drift))
        if comparison is not None:
            files["comparison.csv"] = csv_bytes(comparison_table(result, comparison))
        drawn = [(job.title, *job.names) for job in planned]
        if plots and page:
            shown = [drifting.verdict(drift), drifting.exit_words(drift)] if drift is not None else []
            files["index.html"] = html.page(result, shown).encode()
        files["summary.md"] = summary_markdown(
            result, drawn, gate_words(result, gate) if gate else "", comparison, page="index.html" in files,
            first=drifting.drift_markdown(drift, result) if drift is not None else ()).encode()
        for name, data in files.items():
            write_atomic(staging / name, data, SHARED_FILE)
        if planned:
            from .plots import draw  # here: a sweep that writes tables alone never loads matplotlib

            for job in planned:
                draw(job)
        target.commit([*files, *(name for job in planned for name in job.names)])
    finally:
        target.discard()


def write_systems_report(out: ReportDir, sweeps: Sequence[Sweep], systems: Systems, page: bool = True) -> None:
    """Write the report of a comparison of systems into `out`, whole or not at all: decision.json (the system and
    cell to ship), systems.csv, questions.csv (every question in every system), summary.md and index.html."""
    out.check()
    staging = out.stage()
    try:
        record = {**systems_decision(systems), "evidence": systems.evidence, "questions": len(systems.questions)}
        files = {"decision.json": _json(record),
                 "systems.csv": csv_bytes(systems_frame(systems)),
                 "questions.csv": csv_bytes(outcomes_frame(systems), text=True)}
        if page:
            files["index.html"] = versus.page(sweeps, [s.name for s in systems.systems],
                                              [s.pipeline for s in systems.systems], versus.ship_words(systems),
                                              systems_frame(systems), outcomes_frame(systems)).encode()
        files["summary.md"] = versus.markdown(sweeps, systems, page).encode()
        for name, data in files.items():
            write_atomic(staging / name, data, SHARED_FILE)
        out.commit(list(files))
    finally:
        out.discard()



def write_monitor_report(out: ReportDir, monitor: Monitor, axes: tuple[AxisSpec, AxisSpec]) -> None:
    """Write the report of `sweep.py --monitor` into `out`, whole or not at all: decision.json (`monitor`: the alarm
    and the last bounds), monitor.csv (a row per refresh) and summary.md."""
    out.check()
    staging = out.stage()
    try:
        files = {"decision.json": _json({"monitor": drifting.monitor_record(monitor, axes)}),
                 "monitor.csv": csv_bytes(drifting.monitor_frame(monitor), text=True),
                 "summary.md": drifting.monitor_markdown(monitor, axes).encode()}
        for name, data in files.items():
            write_atomic(staging / name, data, SHARED_FILE)
        out.commit(list(files))
    finally:
        out.discard()
