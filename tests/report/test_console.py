"""What sweep.py prints (`report.console.show_sweep`): what was swept, the decision in the summary's words, the
default against the rule's cell with counts that add up, the comparison and the gate only when there are any,
and where the report went."""

from __future__ import annotations

import io
from pathlib import Path

from quotefinder.report.console import show_sweep
from quotefinder.report.wording import comparison_verdict_words, decision_lines, tally_words
from quotefinder.sweep.grid import parse_axis
from quotefinder.sweep.session import SweepOptions, run_sweep

GRID = parse_axis("0:1:0.25")


def shown(*args, **kwargs) -> str:
    out = io.StringIO()
    show_sweep(*args, out=out, **kwargs)
    return out.getvalue()


def test_the_terminal_says_what_was_swept_the_decision_and_where_the_report_went(ten: Path) -> None:
    result, _ = run_sweep(SweepOptions(ten, GRID, GRID), say=lambda _: None)
    text = shown(result, Path("out"), None, None)
    lines = text.splitlines()
    assert lines[0] == (f"Swept {len(result.questions)} question(s) of {ten} (synthetic evidence, "
                        f"{result.repeats} repeats) over 5 x 5 cells.")
    assert lines[2] == "Decision:" and [line.strip() for line in lines[3:8]] == decision_lines(result)
    table = [line for line in lines if " | " in line]
    assert table[0].startswith("Outcome    | default (") and table[0].endswith(", in sample")
    for column in (1, 2):
        assert abs(sum(float(row.split("|")[column]) for row in table[1:]) - len(result.questions)) < 1e-4  # means
    assert "Against " not in text and "Gate:" not in text
    assert lines[-1] == "Wrote out/summary.md, out/decision.json and the tables beside it"
    assert shown(result, Path("out"), None, None, page=True).splitlines()[-1] == (
        "Wrote out/summary.md, out/decision.json, out/index.html and the tables beside it")


def test_a_comparison_is_shown_with_its_verdict(ten: Path) -> None:
    result, comparison = run_sweep(SweepOptions(ten, GRID, GRID, baseline=ten), say=lambda _: None)
    text = shown(result, Path("out"), None, comparison)
    assert f"\nAgainst {ten}: {tally_words(comparison)}\n" in text
    assert f"Worse overall? {comparison_verdict_words(comparison)}\n" in text
