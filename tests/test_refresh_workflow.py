"""The monthly refresh workflow's gate, run as the job runs it (its step's script in bash, in a directory with or
without --drift's report): the monitor's alarm fails the job, a refresh or monitor that cannot compare fails it
with 2, a WORSE from --drift (its decision.json says `failed`) only warns, since a monthly test at a fixed level
would fail an unchanged API sooner or later, and a --drift that exits 1 without saying why (a crash) fails it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import ROOT


def steps() -> dict[str, dict[str, Any]]:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "refresh.yml").read_text(encoding="utf-8"))
    return {step.get("id") or step.get("name", ""): step for step in workflow["jobs"]["refresh"]["steps"]}


def gate(tmp_path: Path, drift: int, monitor: int, report: bool | None) -> subprocess.CompletedProcess[str]:
    """The gate after --drift exited `drift` and --monitor `monitor`; `report`: --drift's decision.json says
    failed (True), not failed (False), or is absent (None)."""
    step = next(s for name, s in steps().items() if name.startswith("Gate"))
    script = (step["run"].replace("${{ steps.drift.outputs.status }}", str(drift))
              .replace("${{ steps.monitor.outputs.status }}", str(monitor)))
    assert "${{" not in script
    if report is not None:
        (tmp_path / "drift-report").mkdir()
        (tmp_path / "drift-report" / "decision.json").write_text(json.dumps({"drift": {"failed": report}}))
    return subprocess.run(["bash", "-e", "-c", script], capture_output=True, text=True, check=False, cwd=tmp_path)


@pytest.mark.parametrize(("drift", "monitor", "report", "status", "warned"), [
    (0, 0, False, 0, False), (1, 0, True, 0, True), (0, 1, False, 1, False), (1, 1, True, 1, True),
    (2, 0, None, 2, False), (0, 2, False, 2, False), (1, 2, True, 2, False), (2, 1, None, 2, False),
    (1, 0, None, 1, False), (1, 0, False, 1, False)])
def test_the_gate_fails_on_the_monitor_and_on_what_cannot_be_compared(tmp_path: Path, drift: int, monitor: int,
                                                                      report: bool | None, status: int,
                                                                      warned: bool) -> None:
    found = gate(tmp_path, drift, monitor, report)
    assert found.returncode == status, found.stdout + found.stderr
    assert ("::warning::--drift" in found.stdout) == warned


def test_the_steps_the_gate_reads_keep_going_and_say_their_status() -> None:
    """The drift and monitor steps must not stop the job at their own exit (set +e) and must hand the gate their
    status; the gate reads what they write, and the report --drift writes is where the gate looks."""
    found = steps()
    for name in ("drift", "monitor"):
        run = found[name]["run"]
        assert run.lstrip().startswith("set +e") and 'echo "status=$?" >> "$GITHUB_OUTPUT"' in run, name
    assert "--out drift-report" in found["drift"]["run"]
