"""The wheel is what a user imports: every product module and the stand-in, the HTML report's assets, and
nothing that only the tests, the benchmarks or a prototype run. Built offline from a clean copy of the checkout
(the files git tracks or would track), with the environment's setuptools, as `pip wheel` builds it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT

# The top level of `quotefinder/` as it ships: core, the systems, record, sweep, report, the Python API, the command
# lines and the stand-in. The benchmarks (`benchmarks/`, beside the package) never ship.
SUBPACKAGES = {"core", "recipe", "quoteanswer", "oneshot", "questions", "record", "sweep", "report",
               "standin", "commands"}
MODULES = {"__init__.py", "__main__.py", "api.py", "cli.py", "config.py", "evalcmd.py", "sweepcmd.py"}


def clean_copy(destination: Path) -> Path:
    """The checkout's files without what git ignores (caches, build/, *.egg-info), so the build sees what a clone
    holds and writes its build/ there, not here."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is not there
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    return destination


def build_wheel(source: Path, out: Path) -> list[str]:
    """The names in the wheel `pip wheel` builds from `source` (no index, no build isolation: no network)."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation",
                    "--no-index", "--disable-pip-version-check", "-q", "-w", str(out)], check=True)
    [wheel] = out.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return sorted(archive.namelist())


@pytest.mark.slow
def test_the_wheel_holds_the_product_and_the_stand_in_and_nothing_else(tmp_path: Path) -> None:
    source = clean_copy(tmp_path / "src")
    names = build_wheel(source, tmp_path / "dist")
    found = "the wheel holds:\n" + "\n".join(names)
    shipped = [n for n in names if not n.split("/")[0].endswith(".dist-info")]
    assert {n.split("/")[0] for n in names} - {"quotefinder"} == {"quotefinder_eval-0.1.0.dist-info"}, found
    assert {n.split("/")[0] for n in shipped} == {"quotefinder"}, found  # no tests/, benchmarks/, data/
    top = {n.split("/")[1] for n in shipped}
    assert top == SUBPACKAGES | MODULES, f"top level {sorted(top)}, expected {sorted(SUBPACKAGES | MODULES)}\n{found}"

    # Every module of the checkout's package ships, and the report's page assets beside them; nothing else does.
    package = source / "quotefinder"
    modules = {p.relative_to(source).as_posix() for p in package.rglob("*.py")}
    expected = modules | {"quotefinder/report/page.js", "quotefinder/report/page.css"}
    assert set(shipped) == expected, (f"missing {sorted(expected - set(shipped))}, "
                                      f"unexpected {sorted(set(shipped) - expected)}\n{found}")
    assert {"quotefinder/standin/__main__.py", "quotefinder/standin/server.py", "quotefinder/standin/squad.py",
            "quotefinder/standin/synthetic.py"} <= set(shipped), found


def test_the_figures_library_is_a_dependency_and_pillow_is_only_its_own() -> None:
    """matplotlib draws the figures; Pillow comes with it (matplotlib depends on it), and the project declares none
    of its own: nothing here draws with it."""
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {entry.split(">")[0].split("=")[0].split("<")[0].strip().lower() for entry in declared}
    assert "matplotlib>=3.8" in declared and "pillow" not in names
    package = ROOT / "quotefinder"
    assert not any(re.search(r"^\s*(from|import) PIL\b", path.read_text(encoding="utf-8"), re.MULTILINE)
                   for path in package.rglob("*.py"))
