"""`quotefinder sweep RUN` (commands/sweep.py): one run's report, byte for byte the one `python sweep.py` writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT, checked_help
from quotefinder import sweepcmd
from quotefinder.commands.sweep import build_parser, main

REPORT = ("decision.json", "grid.csv", "questions.csv", "summary.md", "index.html")


def test_help_fits_a_screen_and_ends_with_two_examples(capsys: pytest.CaptureFixture[str]) -> None:
    text = checked_help(main, [], build_parser(), capsys)
    assert "--max-wrong N" in text and "--baseline RUN" in text and "--review" not in text and "--drift" not in text


def test_the_committed_report_regenerates_byte_identical_through_the_verb_and_the_alias(
        ten: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ten.parent.parent)
    assert main(["runs/ten", "--out", "verb"]) == 0
    assert sweepcmd.main(["runs/ten", "--out", "alias"]) == 0
    for name in REPORT:
        committed = (ROOT / "reports" / "ten" / name).read_bytes()
        assert Path("verb", name).read_bytes() == committed, name
        assert Path("alias", name).read_bytes() == committed, name


def test_a_gate_is_checked_and_its_options_echoed(ten: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ten.parent.parent)
    assert main(["runs/ten", "--at", "0.3,0.9", "--max-wrong", "0", "--min-correct", "99", "--no-plots"]) == 1
    summary = Path("reports", "ten", "summary.md").read_text(encoding="utf-8")
    assert "`--at 0.3,0.9`, `--max-wrong 0`, `--min-correct 99`" in summary
    capsys.readouterr()
    assert main(["runs/ten", "runs/ten"]) == 2
    assert "quotefinder sweep: error: unrecognized arguments: runs/ten" in capsys.readouterr().err


def test_a_run_folder_named_with_escape_codes_is_printed_inert(ten: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A run folder (or a report folder) whose name holds an escape sequence and a right-to-left override: what
    the sweep prints (what it swept, where it wrote, an error naming it) shows them as <U+XXXX>, never acts on
    them."""
    hostile = ten.rename(ten.with_name("te\x1b[2J\x1b]0;owned\x07n\u202eevil"))
    out = tmp_path / "out\x1b[31m\u202e"
    from quotefinder.commands import main as quotefinder  # the front door, as `quotefinder sweep` runs

    assert quotefinder(["sweep", str(hostile), "--out", str(out), "--no-plots"]) == 0
    assert quotefinder(["sweep", str(hostile), "--out", str(out / "grid.csv"), "--no-plots"]) == 2
    captured = capsys.readouterr()
    for text in (captured.out, captured.err):
        assert not any(char in text for char in "\x1b\x07\u202e"), text
    assert "te<U+001B>[2J" in captured.out and "<U+202E>evil" in captured.out and "<U+001B>[31m" in captured.err


@pytest.mark.slow
def test_figures_in_other_formats_through_the_verb_and_the_alias(ten: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """`--figures pdf,png` writes each figure as both, through `quotefinder sweep` and `sweep.py` alike, and the
    summary is the default one but for the PDFs it names; a format matplotlib is not asked for is refused."""
    monkeypatch.chdir(ten.parent.parent)
    assert main(["runs/ten", "--out", "verb", "--figures", "pdf,png"]) == 0
    assert sweepcmd.main(["runs/ten", "--out", "alias", "--figures", "pdf,png"]) == 0
    written = sorted(p.name for p in Path("verb").iterdir())
    assert written == sorted(p.name for p in Path("alias").iterdir())
    assert {"flips.pdf", "flips.png", "heatmap-wrong.pdf", "heatmap-wrong.png"} <= set(written)
    summary = Path("verb", "summary.md").read_text(encoding="utf-8")
    assert summary == Path("alias", "summary.md").read_text(encoding="utf-8")
    committed = (ROOT / "reports" / "ten" / "summary.md").read_text(encoding="utf-8")
    assert summary.count("[PNG]") == 6  # each figure links its PDF, then its PNG
    assert [line for line in summary.splitlines() if ".pdf" not in line] == [
        line for line in committed.splitlines() if ".png" not in line]
    capsys.readouterr()
    assert main(["runs/ten", "--figures", "png,gif"]) == 2
    assert "--figures: 'gif': figures are written as png, svg, pdf" in capsys.readouterr().err


def test_a_run_is_never_its_own_baseline(ten: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Compared with itself a run always passes: refused, however the path is written."""
    assert main([str(ten), "--baseline", str(ten.parent / ".." / "runs" / "ten"), "--at", "0.3,0.6"]) == 2
    assert "is the run swept: compare it with an earlier run of its own" in capsys.readouterr().err
