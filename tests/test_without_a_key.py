"""docs/standin.md's path, run as a newcomer runs it: its first code block, as written, by bash, in a folder holding
only the data set, with the stand-in on a free port instead of 8765 (the tests run side by side). It imports,
serves, records and sweeps; the run and the report say the evidence is synthetic."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow
PAGE = ROOT / "docs" / "standin.md"


def first_block(markdown: str) -> str:
    """The page's first indented code block, as a shell script."""
    block: list[str] = []
    for line in markdown.splitlines():
        if line.startswith("    "):
            block.append(line[4:])
        elif block and line.strip():
            break
    return "\n".join(block) + "\n"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_the_keyless_page_runs_as_written_from_import_to_sweep(tmp_path: Path) -> None:
    script = first_block(PAGE.read_text(encoding="utf-8"))
    assert script.startswith("quotefinder import ") and "quotefinder sweep runs/squad" in script
    assert script.count("8765") == 2  # the port it serves and the one it records from, nothing else
    shutil.copytree(ROOT / "data", tmp_path / "data")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-e", "-c", script.replace("8765", str(free_port()))], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = (tmp_path / "reports" / "squad" / "summary.md").read_text(encoding="utf-8")
    assert "Synthetic evidence" in summary and "200 question(s)" in done.stdout
    assert "--estimate: nothing was sent" in done.stdout
    assert '"evidence": "synthetic"' in (tmp_path / "runs" / "squad" / "run.json").read_text(encoding="utf-8")
