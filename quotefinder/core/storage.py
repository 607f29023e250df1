"""Writing files so that a crash, a kill or a full disk never leaves one half-written (and reading one whole).

Every file the project writes (cache entries, run.json, reports, plots, verdicts) goes through
`write_atomic`: a temporary file beside the target, written whole, flushed to disk, renamed into
place, then the directory flushed. A writer killed part-way leaves at most a `.NAME.PID.tmp`, which
nothing reads and `remove_temporaries` tidies.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat
from pathlib import Path

from .textsafe import terminal

PRIVATE_FILE = 0o600  # responses and run records hold third-party web text
SHARED_FILE = 0o644  # reports and verdicts are meant to be read by others
TEMPORARY_GLOB = ".*.tmp"
TEMPORARY = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)\.tmp")  # what `write_atomic` leaves when killed: .NAME.PID.tmp


DERIVED = "replay-index"  # the folder of a run's derived files, in its folder of the user's cache
CACHE_ENV = "QUOTEFINDER_CACHE_DIR"  # where derived files go instead of the user's cache directory (tests, CI)


def cache_root() -> Path:
    """The user's cache directory for derived files: `QUOTEFINDER_CACHE_DIR`, else platformdirs' for
    quotefinder-eval."""
    import platformdirs  # here: only a sweep that keeps derived files needs it

    return Path(os.environ.get(CACHE_ENV) or platformdirs.user_cache_dir("quotefinder-eval"))


def unsafe_folder(path: Path, follow: bool = False) -> str:
    """Why the folder at `path` may not hold files a sweep trusts ('' when it may, or when there is nothing there
    yet): it is a symbolic link (unless `follow`), not a folder, not owned by this user, or writable by its group
    or by others, who could then put derived files there that change a verdict. As ssh treats a key file."""
    try:
        found = os.stat(path) if follow else os.lstat(path)
    except FileNotFoundError:
        return ""
    except OSError as error:
        return f"it cannot be looked at ({error.strerror or error})"
    if stat.S_ISLNK(found.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISDIR(found.st_mode):
        return "it is not a folder"
    if found.st_uid != os.geteuid():
        return f"it is owned by another user (uid {found.st_uid})"
    if found.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"others can write to it (mode {stat.S_IMODE(found.st_mode):04o})"
    return ""


def cache_refused(run_dir: Path | None = None) -> str:
    """Why the user's cache directory (and, given `run_dir`, the run's folder in it) is not used for derived files,
    as one line ('' when it is used): see `unsafe_folder`. The cache directory itself is looked at where its links
    lead (a user may keep ~/.cache elsewhere); the folders the project makes in it must be no links at all."""
    root = cache_root()
    folders = [(root, True), (root / "runs", False)]
    if run_dir is not None:
        folders.append((_run_folder(root, run_dir), False))
        folders.append((folders[-1][0] / DERIVED, False))
    for folder, follow in folders:
        why = unsafe_folder(folder, follow)
        if why:
            return (f"not using the cache folder {terminal(str(folder))} for derived files ({why}): the sweep "
                    f"replays every response instead. Make it yours and private (chmod 700), or set {CACHE_ENV} to "
                    "a folder of your own")
    return ""


def _run_folder(root: Path, run_dir: Path) -> Path:
    return root / "runs" / hashlib.sha256(str(Path(run_dir).resolve()).encode()).hexdigest()[:32]


def derived_dir(run_dir: Path) -> Path | None:
    """Where a run's derived files live (its replay index, the kept parse of its question file): `DERIVED` in a
    folder of the user's cache directory (`cache_root`) named by the SHA-256 of the run directory's resolved path.
    Never inside the run: a commit could put derived files there, and a sweep must trust only the evidence and the
    question file. None when that folder, or a folder holding it, is a symbolic link, is someone else's, or others
    can write to it (`cache_refused` says which): derived files are then never read, written or tidied there (the
    sweep replays everything)."""
    if cache_refused(run_dir):
        return None
    return _run_folder(cache_root(), run_dir) / DERIVED


def read_private(path: Path) -> bytes:
    """The bytes of a derived file, read only when it is a regular file of this user's that others cannot write
    (never through a link); `PermissionError` otherwise, like any other file that cannot be read."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        found = os.fstat(fd)
        if (not stat.S_ISREG(found.st_mode) or found.st_uid != os.geteuid()
                or found.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
            raise PermissionError(f"{path}: not a private file of this user's")
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read()
    finally:
        os.close(fd)


def linked(path: Path) -> Path | None:
    """The first folder on the way to `path` that is a symbolic link, or None: `path` itself, and every folder above
    it below the current directory (a relative path's, or an absolute one's inside it), where a commit can put a
    link; above the current directory the user's own folders are left as they are. A command never writes through
    a link it did not make: it writes where the link leads only when given that path."""
    where = Path(os.path.abspath(path))
    here = Path.cwd()
    for folder in (where, *where.parents):
        if folder != where and (folder == here or not folder.is_relative_to(here)):
            break
        if folder.is_symlink():
            return folder
    return None


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


MAX_ENTRY_BYTES = 256 << 20  # a saved response (the largest a search returns is a few hundred KB)


def read_whole(path: str, limit: int = MAX_ENTRY_BYTES, follow: bool = True) -> tuple[os.stat_result, bytes]:
    """A regular file's status (`os.fstat` of the open file, before a byte is read) and its bytes to the end, at most
    `limit` of them: what `open(path, "rb")`, `os.fstat` and `read()` give, with their errors (of the same type,
    errno and strerror: `FileNotFoundError`, `IsADirectoryError`, ...), in fewer system calls (no buffered reader,
    no terminal check): a replay reads every response this way. Anything else at the path (a link a commit put
    there to /dev/zero, a FIFO, a device) is an `OSError` (EINVAL) before a byte is read, never a hang or a read
    without end; a file that grows past `limit` is EFBIG. `follow` False: a link at the path itself is ELOOP."""
    flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW)  # (a FIFO opens at once)
    fd = os.open(path, flags)
    try:
        found = os.fstat(fd)
        if stat.S_ISDIR(found.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        if not stat.S_ISREG(found.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        if found.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit:,} bytes", path)
        data = os.read(fd, found.st_size + 1)
        if data:  # read on until a read returns nothing, as `read()` does, whatever the size said
            parts, size = [data], len(data)
            while more := os.read(fd, 1 << 16):
                parts.append(more)
                size += len(more)
                if size > limit:
                    raise OSError(errno.EFBIG, f"larger than {limit:,} bytes", path)
            data = parts[0] if len(parts) == 1 else b"".join(parts)
        return found, data
    finally:
        os.close(fd)


def read_file(path: Path | str, limit: int, follow: bool = True) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them (`read_whole`'s rules and errors): how every
    file a command reads is read."""
    return read_whole(str(path), limit, follow)[1]


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
