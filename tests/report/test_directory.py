"""A report is whole or absent: `sweep.py` killed at any moment (`kill -9`) leaves its report directory holding the
previous whole report or the new whole one, or, killed within the swap itself, a report its manifest marks
incomplete, which every reader refuses; never a mix that passes for a report. The next sweep tidies what a killed
one left, and the user's own files survive all of it."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import run_files
from quotefinder.core.errors import ReportError
from quotefinder.report.directory import MANIFEST, whole_report
from quotefinder.sweepcmd import main

PREVIOUS = ["--no-plots", "--answer", "0:1:0.1"]  # the report already there: different files, different bytes
NEW: list[str] = []  # the sweep that is killed: every file, PNGs and page included


def _sweep_process(ten: Path, out: Path, args: list[str], prelude: str = "") -> subprocess.Popen[bytes]:
    code = f"import sys\n{prelude}\nfrom quotefinder.sweepcmd import main\nsys.exit(main())"
    return subprocess.Popen([sys.executable, "-c", code, str(ten), "--out", str(out), *args], cwd=ten.parent.parent,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


def _state(out: Path, previous: dict[str, bytes], new: dict[str, bytes]) -> str:
    """'previous' or 'new' when the directory holds that whole report (the manifest complete, every file it lists
    matching its hash, no file of another sweep beside them), 'incomplete' when its manifest says so and a reader
    refuses it; anything else fails the test."""
    found = {name: data for name, data in run_files(out).items()
             if name != "notes.txt" and not name.startswith(".")}  # leftovers no reader reads: tidied next time
    manifest = json.loads(found[MANIFEST])
    if not manifest["complete"]:
        with pytest.raises(ReportError, match="incomplete"):
            whole_report(out)
        return "incomplete"
    whole_report(out)
    for name, expected in (("previous", previous), ("new", new)):
        if found == expected:
            return name
    differ = sorted(name for name in {*found, *new} if found.get(name) != new.get(name))
    raise AssertionError(f"a mix: {sorted(found)} is neither report (against the new one, {differ} differ)")


def _leftovers(out: Path) -> list[str]:
    beside = [p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")]
    inside = [p.name for p in out.iterdir() if p.name.startswith(".")]
    return beside + inside


def _reports(ten: Path, tmp_path: Path, previous_args: list[str], new_args: list[str]
             ) -> tuple[Path, Path, dict[str, bytes], dict[str, bytes]]:
    """The previous report (saved aside, with a file of the user's in it), where the new one goes, and the bytes
    of both. Made where the killed sweeps run: the summary shows paths relative to it."""
    saved = tmp_path / "previous"
    assert main([str(ten), "--out", str(saved), *previous_args]) == 0
    (saved / "notes.txt").write_text("mine")
    assert main([str(ten), "--out", str(tmp_path / "reference"), *new_args]) == 0
    previous = {k: v for k, v in run_files(saved).items() if k != "notes.txt"}
    return saved, tmp_path / "out", previous, run_files(tmp_path / "reference")


def _restore(saved: Path, out: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(saved, out)


def _tidy_and_check(ten: Path, out: Path, args: list[str], new: dict[str, bytes]) -> None:
    """The next sweep after a kill: it tidies every leftover and writes the whole new report, keeping the user's."""
    assert main([str(ten), "--out", str(out), *args]) == 0
    assert _leftovers(out) == []
    assert (out / "notes.txt").read_text() == "mine"
    assert {k: v for k, v in run_files(out).items() if k != "notes.txt"} == new


@pytest.mark.faults
def test_kill_9_at_random_moments_leaves_the_previous_or_the_new_report(ten: Path, tmp_path: Path,
                                                                       monkeypatch) -> None:
    monkeypatch.chdir(ten.parent.parent)
    saved, out, previous, new = _reports(ten, tmp_path, PREVIOUS, NEW)
    rng = random.Random(17)
    delays = [0.0, *sorted(rng.uniform(0.2, 2.0) for _ in range(6)), None]  # None: let it finish
    seen = []
    for delay in delays:
        _restore(saved, out)
        (out / ".grid.csv.99999.tmp").write_text("what a writer killed long ago left")
        sweep = _sweep_process(ten, out, NEW)
        if delay is None:
            assert sweep.wait(timeout=120) == 0, sweep.stderr.read() if sweep.stderr else ""
        else:
            time.sleep(delay)
            sweep.kill()
            sweep.wait(timeout=30)
        assert sweep.stderr is not None and b"Traceback" not in sweep.stderr.read()
        seen.append(_state(out, previous, new))
        assert (out / "notes.txt").read_text() == "mine"
        _tidy_and_check(ten, out, NEW, new)
    assert seen[0] == "previous" and seen[-1] == "new"


@pytest.mark.faults
def test_death_at_every_step_of_the_swap_is_refused_by_readers_and_repaired_by_the_next_sweep(
        ten: Path, tmp_path: Path, monkeypatch) -> None:
    """The moments a random kill rarely hits: the process ends abruptly (no cleanup, as `kill -9`) right before
    its k-th rename into the report directory, for every k the swap takes. The previous report has plots and the
    new one none, so the swap removes files as well as replacing them."""
    monkeypatch.chdir(ten.parent.parent)
    new_args = ["--no-plots"]
    saved, out, previous, new = _reports(ten, tmp_path, ["--answer", "0:1:0.1"], new_args)
    seen = []
    for k in range(40):
        _restore(saved, out)
        prelude = (f"import os\nreal = os.replace\ncalls = [0]\n"
                   f"def replace(src, dst, **kw):\n"
                   f"    if os.path.dirname(os.path.abspath(dst)) == {str(out)!r}:\n"
                   f"        if calls[0] == {k}:\n"
                   f"            os._exit(9)\n"
                   f"        calls[0] += 1\n"
                   f"    return real(src, dst, **kw)\n"
                   f"os.replace = replace\n")
        sweep = _sweep_process(ten, out, new_args, prelude)
        code = sweep.wait(timeout=120)
        assert sweep.stderr is not None and b"Traceback" not in sweep.stderr.read()
        seen.append(_state(out, previous, new))
        _tidy_and_check(ten, out, new_args, new)
        if code == 0:  # the swap took fewer than k renames: every step has been cut
            break
    assert seen[0] == "previous" and seen[-1] == "new" and "incomplete" in seen
    assert seen == sorted(seen, key=["previous", "incomplete", "new"].index)


def test_a_report_changed_after_the_sweep_is_not_whole(ten: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert main([str(ten), "--out", str(out), "--no-plots"]) == 0
    assert sorted(whole_report(out).files) == ["decision.json", "grid.csv", "questions.csv", "summary.md"]
    (out / "grid.csv").write_text("edited")
    with pytest.raises(ReportError, match=f"{out}/grid.csv does not match"):
        whole_report(out)
    (out / "grid.csv").unlink()
    with pytest.raises(ReportError, match=f"{out}/grid.csv is missing"):
        whole_report(out)
    (out / MANIFEST).unlink()
    with pytest.raises(ReportError, match=f"{out} holds no report manifest"):
        whole_report(out)



@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["Ctrl+C", "SIGTERM"])
def test_ctrl_c_or_sigterm_within_the_swap_waits_for_it_to_finish(ten: Path, tmp_path: Path, monkeypatch, capsys,
                                                                  signum) -> None:
    out = tmp_path / "r"
    assert main([str(ten), "--out", str(out)]) == 0
    real = os.replace

    def interrupted_replace(source, target, **options):
        if Path(target) == out / "grid.csv":  # halfway through the swap
            signal.raise_signal(signum)
        return real(source, target, **options)

    monkeypatch.setattr(os, "replace", interrupted_replace)
    assert main([str(ten), "--out", str(out), "--no-plots"]) == 2
    err = capsys.readouterr().err
    assert err == f"quotefinder sweep: interrupted; the report in {out} was written whole before it stopped\n"
    assert sorted(whole_report(out).files) == ["decision.json", "grid.csv", "questions.csv", "summary.md"]
    assert _leftovers(out) == []


def test_the_staging_directory_is_inside_the_report_directory(tmp_path: Path) -> None:
    """Inside DIR, so on DIR's own file system (a mount point, a CI volume) and writable wherever DIR is."""
    from quotefinder.report.directory import ReportDir

    target = ReportDir(tmp_path / "mnt")
    staging = target.stage()
    try:
        assert staging.parent == (tmp_path / "mnt").resolve() and staging.stat().st_dev == staging.parent.stat().st_dev
    finally:
        target.discard()
    assert list((tmp_path / "mnt").iterdir()) == []
    assert target.check() is None  # an empty directory, or one holding only a staging leftover, is fine


def test_a_report_file_the_user_edited_is_kept_unless_forced(ten: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "r"
    assert main([str(ten), "--out", str(out), "--no-plots"]) == 0
    (out / "summary.md").write_text("my notes on this sweep\n")
    assert main([str(ten), "--out", str(out), "--no-plots"]) == 2
    assert "summary.md was changed since sweep.py wrote it" in capsys.readouterr().err
    assert (out / "summary.md").read_text() == "my notes on this sweep\n"
    assert main([str(ten), "--out", str(out), "--no-plots", "--force"]) == 0
    assert (out / "summary.md").read_text().startswith("# Cutoff sweep")


@pytest.mark.parametrize("text", ['{"mine": 1}', "[" * 200_000])
def test_a_report_json_that_is_not_ours_is_never_overwritten(ten: Path, tmp_path: Path, capsys, text: str) -> None:
    out = tmp_path / "r"
    out.mkdir()
    (out / MANIFEST).write_text(text)
    for force in ([], ["--force"]):
        assert main([str(ten), "--out", str(out), "--no-plots", *force]) == 2
        err = capsys.readouterr().err
        assert "is not a report manifest" in err and "Traceback" not in err
    assert (out / MANIFEST).read_text() == text


def test_a_leftover_with_an_impossible_process_number_is_tidied(ten: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert main([str(ten), "--out", str(out), "--no-plots"]) == 0
    leftover = out / ".sweep-staging-99999999999999999999"
    leftover.mkdir()
    (leftover / "grid.csv").write_text("half")
    assert main([str(ten), "--out", str(out), "--no-plots"]) == 0
    assert not leftover.exists()


def _folder_of_yours(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    mine = tmp_path / "home" / "important"
    mine.mkdir(parents=True)
    (mine / "thesis.tex").write_text("years of work\n")
    (mine / "grid.csv").write_text("my own grid\n")
    return mine, run_files(mine)


def test_a_committed_staging_link_is_never_followed(ten: Path, tmp_path: Path) -> None:
    """Links named as a sweep's staging directories (a pull request can commit them into a report folder), for this
    process, a dead one and a live one, pointing at a folder of the user's: a sweep into that report (twice, so the
    tidying of a previous report runs too) leaves every file of the folder as it was, and leaves the links alone."""
    out = tmp_path / "r"
    assert main([str(ten), "--out", str(out), "--no-plots"]) == 0
    mine, before = _folder_of_yours(tmp_path)
    planted = [out / f".sweep-staging-{pid}" for pid in (os.getpid(), 99999999, 1)]
    planted.append(out / f".sweep-staging-{os.getpid()}-abc")
    for link in planted:
        link.symlink_to(mine, target_is_directory=True)
    for _ in range(2):
        assert main([str(ten), "--out", str(out), "--no-plots"]) == 0
        assert run_files(mine) == before
    assert all(link.is_symlink() for link in planted)
    whole_report(out)


def test_a_link_at_a_temporary_file_name_is_never_written_through(ten: Path, tmp_path: Path) -> None:
    """Links at the names of the temporary files a write makes (`.NAME.PID.tmp`, for this process) pointing at a
    file of the user's: the file keeps its bytes; the link is replaced by the write, never written through."""
    out = tmp_path / "r"
    assert main([str(ten), "--out", str(out), "--no-plots"]) == 0
    mine, before = _folder_of_yours(tmp_path)
    for name in (MANIFEST, "grid.csv", "summary.md"):
        (out / f".{name}.{os.getpid()}.tmp").symlink_to(mine / "thesis.tex")
    assert main([str(ten), "--out", str(out), "--no-plots"]) == 0
    assert run_files(mine) == before
    whole_report(out)


def test_a_staging_directory_is_new_every_time(tmp_path: Path) -> None:
    """Two stagings of one process get two fresh directories (never one reused), each removed by `discard`."""
    from quotefinder.report.directory import ReportDir

    first, second = ReportDir(tmp_path / "a"), ReportDir(tmp_path / "a")
    try:
        assert first.stage() != second.stage()
    finally:
        first.discard()
        second.discard()
    assert list((tmp_path / "a").iterdir()) == []


@pytest.mark.parametrize("where", ["out", "parent"])
@pytest.mark.parametrize("force", [[], ["--force"]])
def test_a_report_folder_reached_through_a_committed_link_is_refused(ten: Path, tmp_path: Path, monkeypatch, capsys,
                                                                     where: str, force: list[str]) -> None:
    """`reports/ten` (or `reports`) committed as a link to a folder of the user's, existing or not: the sweep writes
    nothing through it, --force or not, and says which link to remove."""
    monkeypatch.chdir(tmp_path)
    mine, before = _folder_of_yours(tmp_path)
    (mine / "summary.md").write_text("my notes\n")
    before = run_files(mine)
    reports = tmp_path / "reports"
    if where == "out":
        reports.mkdir()
        (reports / "ten").symlink_to(mine, target_is_directory=True)
    else:
        reports.symlink_to(mine, target_is_directory=True)
    for target in ("reports/ten", "reports/new") if where == "parent" else ("reports/ten",):
        assert main([str(ten), "--out", target, "--no-plots", *force]) == 2
        assert "is a symbolic link" in capsys.readouterr().err
    assert run_files(mine) == before
    (tmp_path / "elsewhere").symlink_to(tmp_path / "not-there")  # a link to nothing: not made either
    assert main([str(ten), "--out", "elsewhere/deep", "--no-plots"]) == 2 and not (tmp_path / "not-there").exists()


@pytest.mark.parametrize("name", [MANIFEST, "summary.md"])
def test_a_link_to_a_device_in_a_report_is_refused_at_once(ten: Path, tmp_path: Path, capsys, name: str) -> None:
    """A report file (or its manifest) committed as a link to /dev/zero: refused within seconds, never read without
    end; a reader's check (`whole_report`) refuses it too."""
    out = tmp_path / "r"
    assert main([str(ten), "--out", str(out), "--no-plots"]) == 0
    (out / name).unlink()
    (out / name).symlink_to("/dev/zero")
    started = time.monotonic()
    assert main([str(ten), "--out", str(out), "--no-plots"]) == 2
    assert time.monotonic() - started < 30
    with pytest.raises(ReportError):
        whole_report(out)
    if name != MANIFEST:
        assert main([str(ten), "--out", str(out), "--no-plots", "--force"]) == 0  # replaced, the link itself
        assert not (out / name).is_symlink()
        whole_report(out)
