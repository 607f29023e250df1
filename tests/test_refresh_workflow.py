"""The monthly refresh workflow's gate, run as the job runs it (its step's script in bash): the monitor's alarm
fails the job, a refresh or monitor that cannot compare fails it with 2, and --drift's WORSE only warns (a
monthly test at a fixed level would fail an unchanged API sooner or later)."""

from __future__ import annotations

import subprocess

import pytest
import yaml

from conftest import ROOT


def gate(drift: int, monitor: int) -> subprocess.CompletedProcess[str]:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "refresh.yml").read_text(encoding="utf-8"))
    step = next(s for s in workflow["jobs"]["refresh"]["steps"] if s.get("name", "").startswith("Gate"))
    script = (step["run"].replace("${{ steps.drift.outputs.status }}", str(drift))
              .replace("${{ steps.monitor.outputs.status }}", str(monitor)))
    assert "${{" not in script
    return subprocess.run(["bash", "-e", "-c", script], capture_output=True, text=True, check=False)


@pytest.mark.parametrize(("drift", "monitor", "status"),
                         [(0, 0, 0), (1, 0, 0), (0, 1, 1), (1, 1, 1), (2, 0, 2), (0, 2, 2), (1, 2, 2), (2, 1, 2)])
def test_the_gate_fails_on_the_monitor_and_on_what_cannot_be_compared(drift: int, monitor: int, status: int) -> None:
    found = gate(drift, monitor)
    assert found.returncode == status
    assert ("::warning::--drift exited 1" in found.stdout) == (drift == 1 and status != 2)
