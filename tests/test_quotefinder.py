"""The package's own module: its version is the one the distribution is built with."""

from __future__ import annotations

import tomllib

import quotefinder
from conftest import ROOT


def test_the_version_is_pyprojects() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert quotefinder.__version__ == project["version"]
    assert quotefinder.__doc__ and project["name"] in quotefinder.__doc__
