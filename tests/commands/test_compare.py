"""`quotefinder compare RUN RUN [RUN...]` (commands/compare.py): systems side by side, byte for byte the reports
`python sweep.py RUN RUN ...` writes."""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest

from conftest import ROOT, checked_help, copy_run
from quotefinder import sweepcmd
from quotefinder.commands.compare import build_parser, main


def test_help_fits_a_screen_and_ends_with_two_examples(capsys: pytest.CaptureFixture[str]) -> None:
    text = checked_help(main, [], build_parser(), capsys)
    assert "--significance P" in text and "--at" not in text and "--baseline" not in text


@pytest.mark.parametrize(("runs", "report"), [
    (["ten", "ten-terse-criteria"], "ten-vs-ten-terse-criteria"),
    (["ten", "ten-quote-answer", "ten-one-shot"], "ten-systems"),
])
def test_the_committed_reports_regenerate_byte_identical(ten: Path, monkeypatch: pytest.MonkeyPatch,
                                                         runs: list[str], report: str) -> None:
    for run in runs[1:]:
        copy_run(ROOT / "runs" / run, ten.parent / run)
    monkeypatch.chdir(ten.parent.parent)
    named = [f"runs/{run}" for run in runs]
    assert main([*named, "--out", "verb"]) == 0
    assert sweepcmd.main([*named, "--out", "alias"]) == 0
    committed = sorted(path.name for path in (ROOT / "reports" / report).iterdir() if path.is_file())
    for out in ("verb", "alias"):
        same, different, missing = filecmp.cmpfiles(ROOT / "reports" / report, out, committed, shallow=False)
        assert (different, missing) == ([], []), out
        assert same and sorted(path.name for path in Path(out).iterdir() if path.is_file()) == committed


def test_one_run_is_not_a_comparison(ten: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ten.parent.parent)
    assert main(["runs/ten"]) == 2
    assert "quotefinder compare: error: give at least 2 runs" in capsys.readouterr().err
    assert not Path("reports").exists()
