"""`quotefinder.api`: the results say what the report files say, the report is `sweep.py`'s byte for byte, bad
options are refused by name, and docs/api.md's example runs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import quotefinder
from conftest import ROOT, TEN_SCENARIO, copy_run, env_for

REPORT_FILES = ("decision.json", "grid.csv", "questions.csv", "summary.md", "index.html")
OPTIONS: dict[str, Any] = {"grid": {"has_answer": "0.2:0.5:0.05"}, "wrong_cost": 3, "max_wrong_rate": 0.4,
                           "at": (0.3, 0.9), "max_wrong": 0}
AS_TYPED = ["--grid", "has_answer=0.2:0.5:0.05", "--wrong-cost", "3", "--max-wrong-rate", "0.4", "--at", "0.3,0.9",
            "--max-wrong", "0"]  # OPTIONS on sweep.py's command line


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory laid out as the repository (runs/ten, runs/ten-terse-criteria, questions/), and the current one."""
    for name in ("ten", "ten-terse-criteria"):
        copy_run(ROOT / "runs" / name, tmp_path / "runs" / name)
    shutil.copytree(ROOT / "questions", tmp_path / "questions")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def sweep_py(*args: str) -> subprocess.CompletedProcess[str]:
    """`python sweep.py ARGS` in the current directory."""
    return subprocess.run([sys.executable, str(ROOT / "sweep.py"), *args], capture_output=True, text=True,
                          check=False)


def test_the_default_sweep_writes_the_committed_report(demo: Path) -> None:
    result = quotefinder.open_run("runs/ten").sweep()
    out = result.write_report("out")
    for name in REPORT_FILES:
        assert (out / name).read_bytes() == (ROOT / "reports" / "ten" / name).read_bytes(), name
    assert result.decision == json.loads((ROOT / "reports" / "ten" / "decision.json").read_text(encoding="utf-8"))
    pd.testing.assert_frame_equal(result.grid, pd.read_csv(ROOT / "reports" / "ten" / "grid.csv"))
    pd.testing.assert_frame_equal(result.questions, pd.read_csv(ROOT / "reports" / "ten" / "questions.csv"))
    assert result.gate is None and result.comparison is None and result.holds


@pytest.mark.slow
def test_figures_in_other_formats_are_the_figures_option(demo: Path) -> None:
    """`write_report(dir, figures=["svg"])` writes what `sweep.py RUN --figures svg` writes, byte for byte."""
    done = sweep_py("runs/ten", "--figures", "svg", "--out", "cli")
    assert done.returncode == 0, done.stderr
    out = quotefinder.open_run("runs/ten").sweep().write_report("api", figures=["svg"])
    assert {p.name: p.read_bytes() for p in out.iterdir()} == {p.name: p.read_bytes() for p in (demo / "cli").iterdir()}
    assert (out / "flips.svg").exists() and not (out / "flips.png").exists()


@pytest.mark.slow
def test_keyword_arguments_are_sweep_pys_options(demo: Path) -> None:
    done = sweep_py("runs/ten", *AS_TYPED, "--out", "cli")
    assert done.returncode in (0, 1), done.stderr
    result = quotefinder.open_run("runs/ten").sweep(**OPTIONS)
    out = result.write_report("api")
    for name in REPORT_FILES:
        assert (out / name).read_bytes() == (demo / "cli" / name).read_bytes(), name
    echoed = ", ".join(f"`{flag} {value}`" for flag, value in zip(AS_TYPED[::2], AS_TYPED[1::2], strict=True))
    assert f"- Options given: {echoed}\n" in (out / "summary.md").read_text(encoding="utf-8")
    assert result.decision == json.loads((demo / "cli" / "decision.json").read_text(encoding="utf-8"))
    grid = pd.read_csv(demo / "cli" / "grid.csv")
    pd.testing.assert_frame_equal(result.grid, grid)
    cells = len(result.sweep.h_axis.values) * len(result.sweep.a_axis.values)
    assert "certified" in grid.columns and len(grid) == cells
    pd.testing.assert_frame_equal(result.questions, pd.read_csv(demo / "cli" / "questions.csv"))
    assert result.gate is not None and result.holds == (done.returncode == 0)


def test_a_report_without_plots_is_sweep_pys_no_plots(demo: Path) -> None:
    assert sweep_py("runs/ten", "--wrong-cost", "0.5", "--no-plots", "--out", "cli").returncode == 0
    out = quotefinder.open_run("runs/ten").sweep(wrong_cost=0.5).write_report("api", plots=False)
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in (demo / "cli").iterdir())
    for path in (demo / "cli").iterdir():
        assert (out / path.name).read_bytes() == path.read_bytes(), path.name


def test_compare_is_sweep_pys_comparison_of_systems(demo: Path) -> None:
    committed = ROOT / "reports" / "ten-vs-ten-terse-criteria"
    found = quotefinder.compare(["runs/ten", "runs/ten-terse-criteria"])
    assert found.decision == json.loads((committed / "decision.json").read_text(encoding="utf-8"))
    pd.testing.assert_frame_equal(found.table, pd.read_csv(committed / "systems.csv"))
    pd.testing.assert_frame_equal(found.questions, pd.read_csv(committed / "questions.csv"))
    out = found.write_report("api")
    for path in committed.iterdir():
        assert (out / path.name).read_bytes() == path.read_bytes(), path.name


@pytest.mark.parametrize(("options", "named"), [
    ({"wrong_cost": -1}, "wrong_cost"),
    ({"wrong_cost": float("nan")}, "wrong_cost"),
    ({"max_wrong_rate": 1.0}, "max_wrong_rate"),
    ({"delta": 0}, "delta"),
    ({"answerable_share": 1.5}, "answerable_share"),
    ({"level": "0.05"}, "level"),
    ({"folds": -2}, "folds"),
    ({"max_wrong": -1, "at": (0.3, 0.9)}, "max_wrong"),
    ({"min_correct": 2.5, "at": (0.3, 0.9)}, "min_correct"),
    ({"grid": {"nope": "0:1:0.1"}}, "nope"),
    ({"grid": {"has_answer": "0:1:0.3"}}, "has_answer"),
    ({"grid": {"answer": 0.5}}, "answer"),
    ({"at": (0.3,)}, "at"),
    ({"at": (0.3, "x")}, "at"),
    ({"max_wrong": 0}, "max_wrong"),
    ({"at": (0.3, 0.9)}, "at"),
    ({"strict": True}, "strict"),
    ({"folds": 1}, "folds"),
    ({"jobs": 0}, "jobs"),
    ({"jobs": 10**6}, "jobs"),
    ({"seed": 2**64}, "seed"),
    ({"at": (float("nan"), 0.6), "max_wrong": 0}, "at"),
    ({"at": (float("inf"), 0.6), "max_wrong": 0}, "at"),
    ({"answerable_share": 1e-300}, "answerable_share"),
    ({"max_wrong_rate": 1e-300}, "max_wrong_rate"),
    ({"wrong_cost": 1e300}, "wrong_cost"),
    ({"grid": {"answer": "0:1:1e-99999999"}}, "answer"),
    ({"grid": {"answer": "0:" + "1" * 5000 + ":0.1"}}, "answer"),
    ({"grid": [("has_answer", "0:1:0.1")]}, "grid"),
    ({"grid": "has_answer=0:1:0.1"}, "grid"),
    ({"at": (x for x in (0.3, 0.6)), "max_wrong": 0}, "at"),
    ({"at": {0.3: 1, 0.6: 2}, "max_wrong": 0}, "at"),
    ({"at": ("0.3", "0.6"), "max_wrong": 0}, "at"),
    ({"allow_incomplete": "false"}, "allow_incomplete"),
    ({"strict": 1, "baseline": "runs/ten-terse-criteria"}, "strict"),
    ({"baseline": 5, "at": (0.3, 0.6)}, "baseline"),
    ({"questions": 5}, "questions"),
    ({"baseline": "runs/../runs/ten", "at": (0.3, 0.6)}, "baseline"),
])
def test_a_bad_option_is_refused_by_name(demo: Path, options: dict[str, Any], named: str) -> None:
    with pytest.raises(quotefinder.InputError, match=re.escape(named)):
        quotefinder.open_run("runs/ten").sweep(**options)


@pytest.mark.parametrize("inside", ["runs/ten", "runs/ten/report", "runs/ten-again/x"])
def test_a_report_inside_a_run_is_refused_as_the_command_refuses_it(demo: Path, inside: str) -> None:
    """The command refuses `--out` inside a run or its baseline (the report would mix with the evidence); so does
    the API, with the project's own error, and nothing is written there."""
    copy_run(ROOT / "runs" / "ten", demo / "runs" / "ten-again")
    before = sorted(Path("runs").rglob("*"))
    result = quotefinder.open_run("runs/ten").sweep(baseline="runs/ten-again", at=(0.3, 0.9))
    with pytest.raises(quotefinder.InputError, match="is inside the run directory"):
        result.write_report(inside)
    with pytest.raises(quotefinder.InputError, match="is inside the run directory"):
        quotefinder.compare(["runs/ten", "runs/ten-again"]).write_report(inside)
    assert sorted(Path("runs").rglob("*")) == before
    assert sweep_py("runs/ten", "--baseline", "runs/ten-again", "--at", "0.3,0.9", "--out", inside).returncode == 2


def test_a_numpy_point_is_read_as_python_s(demo: Path) -> None:
    import numpy as np

    result = quotefinder.open_run("runs/ten").sweep(at=np.array([0.3, 0.6]), max_wrong=9)
    assert result.gate is not None and result.gate.point == (0.3, 0.6)


def test_open_run_refuses_a_directory_without_a_run(demo: Path) -> None:
    with pytest.raises(quotefinder.QuoteFinderError, match="nowhere"):
        quotefinder.open_run("nowhere")


def test_compare_refuses_one_run_and_a_run_twice(demo: Path) -> None:
    with pytest.raises(quotefinder.InputError, match="runs"):
        quotefinder.compare(["runs/ten"])
    with pytest.raises(quotefinder.InputError, match="twice"):
        quotefinder.compare(["runs/ten", "runs/../runs/ten"])
    with pytest.raises(quotefinder.InputError, match="at"):
        quotefinder.compare(["runs/ten", "runs/ten-terse-criteria"], at=(0.3, 0.9))
    with pytest.raises(quotefinder.InputError, match="at"):
        quotefinder.compare(["runs/ten", "runs/ten-terse-criteria"], at=0)


def python_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", markdown, flags=re.MULTILINE | re.DOTALL)


def test_the_docs_example_runs(demo: Path) -> None:
    blocks = python_blocks((ROOT / "docs" / "api.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 5
    namespace: dict[str, Any] = {}
    for n, block in enumerate(blocks):
        exec(compile(block, f"docs/api.md block {n + 1}", "exec"), namespace)
    # what the example shows is the API's: a decision, a grid filtered, a comparison, a report written
    assert namespace["decision"] == namespace["result"].decision
    assert set(namespace["best"].index) <= set(namespace["grid"].index[namespace["grid"]["certified"]])
    assert isinstance(namespace["systems"], quotefinder.SystemsResult)
    assert (demo / "reports" / "api-example" / "decision.json").read_bytes() == \
        json.dumps(namespace["decision"], indent=2, sort_keys=True).encode() + b"\n"


@pytest.mark.slow
def test_drift_is_sweep_pys_drift(ten: Path, standin_for, monkeypatch: pytest.MonkeyPatch) -> None:
    from quotefinder.evalcmd import main as eval_main  # (records the refresh: the stand-in serves the demo's API)
    from quotefinder.standin import load_scenario

    monkeypatch.chdir(ten.parent.parent)
    server = standin_for(load_scenario(TEN_SCENARIO))
    assert eval_main(["--refresh", "runs/ten", "--run", "runs/ten-later", "--rate", "0", "--retries", "0",
                      "--concurrency", "1", "--sample", "5", "--seed", "7"], env=env_for(server)) == 0
    done = sweep_py("runs/ten-later", "--drift", "--max-wrong-rate", "0.4", "--folds", "0", "--no-plots",
                    "--out", "cli")
    assert done.returncode in (0, 1), done.stderr
    result = quotefinder.open_run("runs/ten-later").drift(max_wrong_rate=0.4, folds=0)
    out = result.write_report("api", plots=False)
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in Path("cli").iterdir())
    for path in Path("cli").iterdir():
        if path.name not in ("summary.md", "report.json"):  # (the summary's echo differs: `Run.drift`)
            assert (out / path.name).read_bytes() == path.read_bytes(), path.name
    ours = (out / "summary.md").read_text(encoding="utf-8").splitlines()
    theirs = Path("cli/summary.md").read_text(encoding="utf-8").splitlines()
    differ = [(a, b) for a, b in zip(ours, theirs, strict=True) if a != b]
    assert [a for a, _ in differ] == ["- Options given: `--drift`, `--max-wrong-rate 0.4`, `--folds 0`"]
    assert result.drift is not None and result.holds == (done.returncode == 0)
    assert result.decision == json.loads(Path("cli/decision.json").read_text(encoding="utf-8"))
