"""The budgets benchmark (BENCHMARKS.md, "Budgets, side by side"): it alternates the two codes round by round,
gives every first sweep a cache of its own, and prints each budget's medians and their ratio (its timings are
evidence, not asserted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import budgets


def test_rounds_alternate_and_a_first_sweep_has_an_empty_cache_of_its_own(monkeypatch, tmp_path: Path) -> None:
    seen: list[tuple[str, str | None]] = []

    def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
        seen.append((command[-1], (env or {}).get("QUOTEFINDER_CACHE_DIR")))
        return float(len(seen)), 0.0

    monkeypatch.setattr(budgets, "timed", timed)
    found = budgets.rounds({"a": ["a"], "b": ["b"]}, 3, fresh=False)
    assert [name for name, _ in seen] == ["a", "b", "b", "a", "a", "b"] and found == {"a": [1, 4, 5], "b": [2, 3, 6]}
    seen.clear()
    budgets.rounds({"a": ["a"]}, 2, fresh=True)
    caches = [cache for _, cache in seen]
    assert all(caches) and len(set(caches)) == 2 and not any(Path(c).exists() for c in caches)  # each gone after


def test_the_table_gives_each_pair_its_medians_and_ratio() -> None:
    rows = budgets.table({"x": [1.0, 3.0, 2.0], "y": [4.0, 4.0, 5.0]}, [("what", "x", "y", "at most 2")])
    assert rows[2] == "| what | x: 2.00 s | y: 4.00 s | 2.00 | at most 2 |"


@pytest.mark.slow
def test_the_command_runs_end_to_end_on_the_demo(tmp_path: Path, capsys) -> None:
    from conftest import ROOT

    code = budgets.main(["--before", str(ROOT), "--run", str(ROOT / "runs" / "ten"), "--rounds", "1",
                         "--huge-rounds", "1", "--huge-step", "0.25", "--work", str(tmp_path / "work")])
    out = capsys.readouterr().out
    assert code == 0 and "| demo, every file |" in out and "the pool against one process" in out, out
