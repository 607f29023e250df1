"""The registry of systems: the built-ins listed with the default first, a clear KeyError for an unknown name,
register/unregister for a system made in the process, and a name that is taken is refused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from quotefinder.core import registry
from quotefinder.core.errors import InputError
from quotefinder.core.registry import BUILT_IN, DEFAULT_SYSTEM, axis_spec, known_systems, register, system, unregister
from quotefinder.recipe.system import QUOTE_FINDER


def test_the_built_in_systems_are_listed_the_default_first() -> None:
    names = known_systems()
    assert names[0] == DEFAULT_SYSTEM == QUOTE_FINDER.name
    assert set(names) >= {"quote-finder", "quote-answer", "one-shot"}
    assert len(names) >= len(BUILT_IN)
    assert system() is system(DEFAULT_SYSTEM) is QUOTE_FINDER


def test_an_unknown_system_is_a_key_error_naming_the_known_ones() -> None:
    with pytest.raises(KeyError) as caught:
        system("no-such-system")
    message = str(caught.value)
    assert "'no-such-system'" in message
    assert all(name in message for name in known_systems())


def test_a_system_registered_in_the_process_is_found_then_gone_when_unregistered() -> None:
    mine = _renamed(QUOTE_FINDER, "mine-for-a-test")
    try:
        assert register(mine) is mine  # returned, so that it can decorate an assignment
        assert register(mine) is mine  # the same object again: nothing to refuse
        assert system("mine-for-a-test") is mine
        assert known_systems()[0] == DEFAULT_SYSTEM and known_systems()[-1] == "mine-for-a-test"
    finally:
        unregister("mine-for-a-test")
    assert "mine-for-a-test" not in known_systems()
    unregister("mine-for-a-test")  # nothing registered under that name: nothing happens


def test_a_name_that_is_taken_is_refused_and_the_held_system_kept() -> None:
    impostor = _renamed(QUOTE_FINDER, DEFAULT_SYSTEM)
    assert impostor is not QUOTE_FINDER
    with pytest.raises(ValueError, match="'quote-finder' is already registered"):
        register(impostor)
    assert system(DEFAULT_SYSTEM) is QUOTE_FINDER


def test_an_axis_is_found_by_its_name_and_an_unknown_one_names_the_axes() -> None:
    first = QUOTE_FINDER.axes[0]
    assert axis_spec(QUOTE_FINDER, first.name) is first
    with pytest.raises(KeyError) as caught:
        axis_spec(QUOTE_FINDER, "no-such-axis")
    assert all(spec.name in str(caught.value) for spec in QUOTE_FINDER.axes)


def test_the_core_imports_no_system_until_asked() -> None:
    """The built-ins are named as strings ("module:attribute"), so that the core imports none of them."""
    assert all(":" in spec and spec.startswith("quotefinder.") for spec in BUILT_IN)
    assert BUILT_IN[0].endswith(":QUOTE_FINDER")
    assert registry.GROUP == "quotefinder.systems"


class _Renamed:
    """A system that answers as `wrapped` does, under another name."""

    def __init__(self, wrapped: object, name: str) -> None:
        self._wrapped, self.name = wrapped, name

    def __getattr__(self, attribute: str) -> object:
        return getattr(self._wrapped, attribute)


def _renamed(wrapped: object, name: str) -> object:
    return _Renamed(wrapped, name)


class _Point:
    """An installed entry point of the group, as `importlib.metadata` lists it."""

    def __init__(self, name: str, load) -> None:
        self.name, self.value, self._load = name, f"evil_package:{name[:20]}", load

    def load(self) -> object:
        return self._load()


def _installed(monkeypatch, *points: _Point) -> None:
    """The registry as a fresh process finds it with `points` installed (restored at teardown)."""
    monkeypatch.setattr(registry, "entry_points", lambda group: list(points) if group == registry.GROUP else [])
    monkeypatch.setattr(registry, "_systems", {})
    monkeypatch.setattr(registry, "_loaded", set())


def _exits() -> object:
    raise SystemExit(0)


def _raises() -> object:
    raise RuntimeError("\x1b[2Jcannot import " + "x" * 5000)


@pytest.mark.parametrize(("point", "words"), [
    (_Point("evil", _exits), "the system plugin 'evil' (evil_package:evil) cannot be loaded: it tried to end the "
                             "process (SystemExit(0)); fix or uninstall its package"),
    (_Point("evil", _raises), "cannot be loaded: RuntimeError: <U+001B>[2Jcannot import xxx"),
    (_Point("quote-finder", lambda: _renamed(QUOTE_FINDER, "quote-finder")),
     "the system plugin 'quote-finder' (evil_package:quote-finder) takes the name of the built-in system "
     "'quote-finder' (quotefinder.recipe.system:QUOTE_FINDER)"),
    (_Point("evil\x1b[2J\u202e", lambda: _renamed(QUOTE_FINDER, "evil\x1b[2J\u202e")),
     "the system plugin 'evil\\x1b[2J\\u202e' (evil_package:evil<U+001B>[2J<U+202E>) has a name that is not a "
     "system's"),
    (_Point("evil", lambda: _renamed(QUOTE_FINDER, "other")), "is named 'other'; an entry point's name is its"),
])
def test_a_plugin_that_exits_raises_or_takes_a_name_it_may_not_is_refused_naming_it_inertly(
        monkeypatch, point: _Point, words: str) -> None:
    _installed(monkeypatch, point)
    assert system(DEFAULT_SYSTEM) is QUOTE_FINDER  # the built-ins need no plugin
    with pytest.raises(InputError) as caught:
        system("evil")
    message = str(caught.value)
    assert words in message and "\x1b" not in message and "\u202e" not in message and len(message) < 400


def _plugin_package(root: Path, name: str, body: str) -> Path:
    """A package installed the way pip installs one (a module and its dist-info with an entry point), under `root`,
    to put on PYTHONPATH."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "evil_plugin.py").write_text(body, encoding="utf-8")
    info = root / "evil_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evil-plugin\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[quotefinder.systems]\n{name} = evil_plugin:SYSTEM\n", encoding="utf-8")
    return root


def evil(raises: str) -> str:
    """A plugin module that loads: the system `evil`, the quote finder in all but its curve, which raises `raises`."""
    return ("from quotefinder.recipe.system import QUOTE_FINDER\n\n\nclass Boom(BaseException):\n    pass\n\n\n"
            "class Evil:\n    name = 'evil'\n\n    def __getattr__(self, attribute):\n"
            "        return getattr(QUOTE_FINDER, attribute)\n\n    def curve(self, trace):\n"
            f"        raise {raises}\n\n\nSYSTEM = Evil()\n")


@pytest.mark.faults
@pytest.mark.parametrize(("body", "words"), [
    ("import sys\nsys.exit(0)\n", "it tried to end the process (SystemExit(0))"),
    ("import os\nos.environ['X'] = '1'\nraise ImportError('no')\n", "cannot be loaded: ImportError: no"),
    ("from quotefinder.recipe.system import QUOTE_FINDER as SYSTEM\n", "is named 'quote-finder'"),
    ("class Boom(BaseException):\n    pass\nraise Boom('no')\n", "cannot be loaded: Boom: no"),
    ("class Mute(Exception):\n    def __str__(self):\n        raise SystemExit(0)\nraise Mute()\n",
     "cannot be loaded: Mute: <Mute that cannot say what it is>"),
    (evil("Boom('\\x1b]0;pwned\\x07\\x1b[2J FAKE: Gate PASS')"),
     "unexpected error, so nothing was decided: Boom: <U+001B>]0;pwned<U+0007><U+001B>[2J FAKE: Gate PASS"),
    (evil("BrokenPipeError('not stdout')"), "BrokenPipeError: not stdout"),
    (evil("GeneratorExit()"), "GeneratorExit"),
])
def test_a_gated_sweep_of_a_plugin_s_run_that_misbehaves_ends_in_exit_2_and_writes_nothing(
        ten: Path, tmp_path: Path, body: str, words: str) -> None:
    """The attack as an installed package makes it: a run recorded with the plugin's system, swept with a gate in a
    fresh process. Never exit 0 (the gate unchecked) or 1 (a failed gate): exit 2, one line, no report."""
    run_json = ten / "run.json"
    run_json.write_text(run_json.read_text().replace('"system": "quote-finder"', '"system": "evil"'))
    assert '"system": "evil"' in run_json.read_text()
    packages = _plugin_package(tmp_path / "site", "evil", body)
    out = tmp_path / "report"
    done = subprocess.run([sys.executable, "-m", "quotefinder", "sweep", str(ten), "--out", str(out), "--at",
                           "0.3,0.6", "--max-wrong", "0"], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(packages), str(ROOT)])})
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert done.stderr.count("\n") == 1 and words in done.stderr and "Traceback" not in done.stderr
    assert not out.exists()
