"""Files on disk (`core.storage`): written atomically with their mode or not at all, read whole as open/read would,
private folders, derived files in the cache directory named by the run's path (never through a link), and the
temporary files a killed writer left tidied, a live writer's kept."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from quotefinder.core import storage
from quotefinder.core.storage import (
    CACHE_ENV,
    DERIVED,
    PRIVATE_FILE,
    SHARED_FILE,
    cache_refused,
    derived_dir,
    pid_alive,
    private_dir,
    read_private,
    read_whole,
    remove_stale_temporaries,
    remove_temporaries,
    write_atomic,
    write_private,
)

DEAD_PID = 4194303  # above any Linux pid: no live writer's


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_write_is_whole_with_its_mode_and_leaves_no_temporary(tmp_path: Path) -> None:
    write_private(tmp_path / "a.json", b"secret")
    write_atomic(tmp_path / "b.md", b"shared", SHARED_FILE)
    assert (tmp_path / "a.json").read_bytes() == b"secret" and mode(tmp_path / "a.json") == PRIVATE_FILE
    assert mode(tmp_path / "b.md") == SHARED_FILE
    write_private(tmp_path / "a.json", b"again")
    assert (tmp_path / "a.json").read_bytes() == b"again"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.md"]


def test_a_write_that_fails_leaves_the_file_as_it_was(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "a.json"
    write_private(path, b"before")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match="No space left"):
        write_private(path, b"after")
    assert path.read_bytes() == b"before" and [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_read_whole_gives_the_status_and_every_byte_and_opens_errors(tmp_path: Path) -> None:
    path = tmp_path / "x"
    for data in (b"", b"a", os.urandom(200_000)):
        path.write_bytes(data)
        found, read = read_whole(str(path))
        assert read == data and found.st_size == len(data)
    with pytest.raises(FileNotFoundError):
        read_whole(str(tmp_path / "missing"))
    with pytest.raises(IsADirectoryError):
        read_whole(str(tmp_path))


def test_private_folders_are_0700_and_existing_ones_are_kept(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir(mode=0o755)
    private_dir(tmp_path / "a" / "b" / "c")
    assert mode(tmp_path / "a" / "b") == mode(tmp_path / "a" / "b" / "c") == 0o700
    assert mode(tmp_path / "a") == 0o755


def test_derived_files_go_to_the_cache_directory_never_through_a_link(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    folder = derived_dir(tmp_path / "runs" / "ten")
    assert folder is not None and folder.parent.parent == tmp_path / "cache" / "runs" and folder.name == DERIVED
    assert folder == derived_dir(tmp_path / "runs" / ".." / "runs" / "ten")  # named by the resolved path
    assert folder != derived_dir(tmp_path / "runs" / "other")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "runs").symlink_to(tmp_path / "elsewhere")
    assert derived_dir(tmp_path / "runs" / "ten") is None


def test_temporaries_of_killed_writers_are_tidied_and_a_live_writers_kept(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    dead = tmp_path / f".a.json.{DEAD_PID}.tmp"
    live = tmp_path / f".b.json.{os.getpid()}.tmp"
    below = tmp_path / "sub" / f".c.json.{DEAD_PID}.tmp"
    for path in (dead, live, below):
        path.write_bytes(b"part")
    assert storage.TEMPORARY.fullmatch(dead.name)["pid"] == str(DEAD_PID)
    remove_stale_temporaries(tmp_path)
    assert not dead.exists() and live.exists() and below.exists()  # only this folder, only the dead writer's
    assert remove_temporaries(tmp_path) == 2 and not list(tmp_path.rglob("*.tmp"))
    assert pid_alive(os.getpid()) and not pid_alive(DEAD_PID) and not pid_alive(2**80)


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o722, 0o702])
def test_a_cache_folder_others_can_write_is_not_used(tmp_path: Path, monkeypatch, mode: int) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    run = tmp_path / "runs" / "ten"
    assert cache_refused(run) == "" and derived_dir(run) is not None  # nothing there yet: made private when needed
    folder = derived_dir(run)
    private_dir(folder)
    for unsafe in (tmp_path / "cache", tmp_path / "cache" / "runs", folder.parent, folder):
        unsafe.chmod(mode)
        assert derived_dir(run) is None
        assert f"not using the cache folder {unsafe} for derived files (others can write to it" in cache_refused(run)
        unsafe.chmod(0o700)
    assert derived_dir(run) == folder and cache_refused(run) == ""


def test_the_cache_directory_may_be_a_link_but_nothing_in_it(tmp_path: Path, monkeypatch) -> None:
    """A user may keep ~/.cache elsewhere (a link): the folder it leads to is looked at; the folders the project
    makes in it are never links."""
    (tmp_path / "real").mkdir(mode=0o700)
    (tmp_path / "cache").symlink_to(tmp_path / "real")
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    run = tmp_path / "runs" / "ten"
    folder = derived_dir(run)
    assert folder is not None
    private_dir(folder)
    folder.rename(folder.with_name("elsewhere"))
    folder.symlink_to(folder.with_name("elsewhere"))
    assert derived_dir(run) is None and "it is a symbolic link" in cache_refused(run)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user takes root")
def test_a_derived_file_of_another_user_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "a.index"
    write_private(path, b"derived")
    assert read_private(path) == b"derived"
    os.chown(path, 4242, 4242)
    with pytest.raises(PermissionError):
        read_private(path)
    os.chown(path, 0, 0)
    path.chmod(0o666)
    with pytest.raises(PermissionError):
        read_private(path)
    (tmp_path / "link").symlink_to(path)
    with pytest.raises(OSError):
        read_private(tmp_path / "link")


def test_a_link_at_the_temporary_name_is_never_written_through(tmp_path: Path) -> None:
    """A link a commit planted where a write puts its temporary file (`.NAME.PID.tmp`), pointing at someone's file:
    that file keeps its bytes (nothing opens it for writing); the write lands whole where it should."""
    theirs = tmp_path / "theirs.txt"
    theirs.write_bytes(b"years of work")
    (tmp_path / f".run.json.{os.getpid()}.tmp").symlink_to(theirs)
    (tmp_path / f".dangling.json.{os.getpid()}.tmp").symlink_to(tmp_path / "created-through-the-link")
    write_private(tmp_path / "run.json", b"ours")
    write_private(tmp_path / "dangling.json", b"ours too")
    assert theirs.read_bytes() == b"years of work" and not (tmp_path / "created-through-the-link").exists()
    assert (tmp_path / "run.json").read_bytes() == b"ours" and not (tmp_path / "run.json").is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling.json", "run.json", "theirs.txt"]
