"""The stand-in package's face: `python -m quotefinder.standin` runs the server's command line, and the package
names what its users import."""

from __future__ import annotations

import subprocess
import sys

import quotefinder.standin
from conftest import ROOT
from quotefinder.standin import server


def test_python_dash_m_runs_the_servers_command_line() -> None:
    done = subprocess.run([sys.executable, "-m", "quotefinder.standin", "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m quotefinder.standin")
    missing = subprocess.run([sys.executable, "-m", "quotefinder.standin", str(ROOT / "no-such-scenario.yaml")],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert missing.returncode != 0 and "Traceback" not in missing.stderr and "no-such-scenario" in missing.stderr


def test_the_package_names_the_servers_public_pieces() -> None:
    for name in quotefinder.standin.__all__:
        assert getattr(quotefinder.standin, name) is getattr(server, name)
