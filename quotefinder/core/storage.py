"""Writing files so that a crash, a kill or a full disk never leaves one half-written (and reading one whole).

Every file the project writes (cache entries, run.json, reports, plots, verdicts) goes through
`write_atomic`: a temporary file beside the target, written whole, flushed to disk, renamed into
place, then the directory flushed. A writer killed part-way leaves at most a `.NAME.PID.tmp`, which
nothing reads and `remove_temporaries` tidies.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from pathlib import Path

PRIVATE_FILE = 0o600  # responses and run records hold third-party web text
SHARED_FILE = 0o644  # reports and verdicts are meant to be read by others
TEMPORARY_GLOB = ".*.tmp"
TEMPORARY = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)\.tmp")  # what `write_atomic` leaves when killed: .NAME.PID.tmp


CACHE_ENV = "QUOTEFINDER_CACHE_DIR"  # where derived files go instead of the user's cache directory (tests, CI)


def derived_dir(run_dir: Path) -> Path | None:
    """Where a run's derived files live (its replay index, the kept parse of its question file): a folder of the
    user's cache directory (`QUOTEFINDER_CACHE_DIR`, else platformdirs' for quotefinder-eval) named by the SHA-256
    of the run directory's resolved path. Never inside the run: a commit could put derived files there, and a sweep
    must trust only the evidence and the question file. None when that folder, or the `runs` folder holding it, is
    a symbolic link: derived files are never written or tidied through one (the sweep then replays everything)."""
    import platformdirs  # here: only a sweep that keeps derived files needs it

    root = Path(os.environ.get(CACHE_ENV) or platformdirs.user_cache_dir("quotefinder-eval"))
    runs = root / "runs"
    folder = runs / hashlib.sha256(str(Path(run_dir).resolve()).encode()).hexdigest()[:32]
    if runs.is_symlink() or folder.is_symlink():
        return None
    return folder


def private_dir(path: Path) -> None:
    """Create `path` and its missing parents as 0700 directories."""
    missing = []
    while not path.exists():
        missing.append(path)
        path = path.parent
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):
            directory.mkdir(mode=0o700)


def write_private(path: Path, data: bytes) -> None:
    """`write_atomic` for files only their owner may read (0600)."""
    write_atomic(path, data, PRIVATE_FILE)


def write_atomic(path: Path, data: bytes, mode: int) -> None:
    """Write `data` to `path` atomically: a temporary file, fsync, rename, fsync the directory.

    On any failure (a full disk, say) the temporary file is removed and `path` is untouched.
    """
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = _created(temporary, mode)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def _created(path: Path, mode: int) -> int:
    """A new file at `path`, open for writing: created exclusively, so that nothing already there (a link a commit
    planted at a temporary file's name, pointing at someone's file) is ever followed, truncated or written through.
    What is there under this process's own temporary name is a leftover or a plant: it is unlinked (a link itself,
    never its target) and the file created afresh."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(path, flags, mode)
    except FileExistsError:
        os.unlink(path)
        return os.open(path, flags, mode)


def read_whole(path: str) -> tuple[os.stat_result, bytes]:
    """A file's status (`os.fstat` of the open file, before a byte is read) and its bytes to the end: what
    `open(path, "rb")`, `os.fstat` and `read()` give, with their errors (of the same type, errno and strerror:
    `FileNotFoundError`, `IsADirectoryError`, ...), in fewer system calls (no buffered reader, no terminal check): a
    replay reads every response this way."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        found = os.fstat(fd)
        data = os.read(fd, found.st_size + 1)
        if data:  # read on until a read returns nothing, as `read()` does, whatever the size said
            parts = [data]
            while more := os.read(fd, 1 << 16):
                parts.append(more)
            data = parts[0] if len(parts) == 1 else b"".join(parts)
        return found, data
    finally:
        os.close(fd)


def remove_temporaries(root: Path) -> int:
    """Delete the temporary files killed writers left under `root`; return how many.

    They were never renamed into place, so nothing ever read them; this only tidies up. Call it only
    while no other writer can be at work there (a recording holds the run's lock).
    """
    removed = 0
    for path in Path(root).rglob(TEMPORARY_GLOB):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed += 1
    return removed


def pid_alive(pid: int) -> bool:
    """Whether a process `pid` exists (one of another user's counts)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # no such process (or no such number of one)
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temporaries(directory: Path) -> None:
    """Delete the temporary files in `directory` (not below it) whose writer is gone: safe while others write there,
    since a live writer's file is left alone."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(directory):
            found = TEMPORARY.fullmatch(entry.name)
            if found and not pid_alive(int(found["pid"])):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
