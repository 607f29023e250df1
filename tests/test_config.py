"""quotefinder/config.py: a project's configuration (./quotefinder.toml, or [tool.quotefinder] in ./pyproject.toml),
what it sets, what overrides it, and its errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import ROOT
from quotefinder import config
from quotefinder.commands.compare import build_parser as compare_parser
from quotefinder.commands.sweep import build_parser
from quotefinder.commands.sweep import main as sweep
from quotefinder.config import ConfigError, load
from quotefinder.core.registry import DEFAULT_SYSTEM, system

pytestmark = pytest.mark.usefixtures("config_read")


def summary_options(out: str) -> str:
    lines = Path(out, "summary.md").read_text(encoding="utf-8").splitlines()
    return next(line for line in lines if line.startswith("- Options given:"))


def test_no_file_is_an_empty_configuration(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert load(tmp_path) == config.Config()


def test_the_configuration_is_used_and_said_and_a_flag_overrides_it(ten: Path, monkeypatch: pytest.MonkeyPatch
                                                                     ) -> None:
    root = ten.parent.parent
    monkeypatch.chdir(root)
    (root / "quotefinder.toml").write_text('wrong_cost = 3\ngrid = {has_answer = "0.2:0.5:0.1"}\n')
    assert sweep(["runs/ten", "--no-plots", "--out", "configured"]) == 0
    decision = json.loads(Path("configured", "decision.json").read_text())
    assert '"wrong_cost": 3.0' in json.dumps(decision)
    assert summary_options("configured") == (
        '- Options given: `from quotefinder.toml: wrong_cost = 3`, `from quotefinder.toml: grid = {has_answer = '
        '"0.2:0.5:0.1"}`')
    assert "0.2:0.5:0.1" not in Path("configured", "grid.csv").read_text() and \
        {"0.2", "0.5"} <= set(Path("configured", "grid.csv").read_text().replace("\n", ",").split(","))
    assert sweep(["runs/ten", "--no-plots", "--out", "typed", "--wrong-cost", "4", "--grid",
                  "has_answer=0.3:0.4:0.1"]) == 0
    assert summary_options("typed") == "- Options given: `--wrong-cost 4`, `--grid has_answer=0.3:0.4:0.1`"
    assert '"wrong_cost": 4.0' in Path("typed", "decision.json").read_text()


def test_pyproject_tool_quotefinder_is_read_too(ten: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = ten.parent.parent
    monkeypatch.chdir(root)
    (root / "pyproject.toml").write_text("[project]\nname = 'mine'\n\n[tool.quotefinder]\nat = '0.3,0.9'\n"
                                         "max_wrong = 0\nmin_correct = 99\n")
    assert sweep(["runs/ten", "--no-plots", "--out", "gated"]) == 1  # the configured gate fails
    source = "from pyproject.toml [tool.quotefinder]"
    assert summary_options("gated") == (f"- Options given: `{source}: at = \"0.3,0.9\"`, `{source}: max_wrong = 0`, "
                                        f"`{source}: min_correct = 99`")
    assert sweep(["runs/ten", "--no-plots", "--out", "passed", "--min-correct", "0", "--max-wrong", "9"]) == 0


@pytest.mark.parametrize(("text", "error"), [
    ("wrong_cots = 3\n", "quotefinder.toml: unknown key `wrong_cots`; the keys are: grid, wrong_cost"),
    ("delta = 2\n", "quotefinder.toml: delta = 2: '2': --delta must be a number strictly between 0 and 1"),
    ("at = '0.3'\n", "quotefinder.toml: at = '0.3': '0.3': write HAS_ANSWER_CUTOFF,ANSWER_CUTOFF"),
    ("max_wrong = -1\n", "quotefinder.toml: max_wrong = -1: '-1' is not a whole number from 0 to 10^12"),
    ("grid = {tier = '0:1:0.1'}\n", "quotefinder.toml: grid.tier: quote-finder has no axis 'tier'"),
    ("grid = {answer = '0:2:0.1'}\n", "quotefinder.toml: grid.answer = '0:2:0.1': "),
    ("grid = '0:1:0.1'\n", "quotefinder.toml: `grid` must be a table of axis = \"START:STOP:STEP\""),
    ("wrong_cost = \n", "quotefinder.toml is not valid TOML"),
    ("grid = {answer = '0:1:1e-99999999'}\n", "STEP must be at least 0.000000001"),
    ("answerable_share = 1e-300\n", "--answerable-share must be a number strictly between 0 and 1"),
    ("max_wrong_rate = 1e-300\n", "--max-wrong-rate must be a number strictly between 0 and 1"),
    ("wrong_cost = 1e300\n", "is not a number from 0 to 1,000,000"),
])
def test_a_bad_key_or_value_names_the_file_and_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str], text: str,
                                                       error: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "quotefinder.toml").write_text(text)
    assert sweep(["runs/ten"]) == 2
    assert error in capsys.readouterr().err
    assert not (tmp_path / "reports").exists()


def test_two_configurations_are_one_too_many(tmp_path: Path) -> None:
    (tmp_path / "quotefinder.toml").write_text("delta = 0.05\n")
    (tmp_path / "pyproject.toml").write_text("[tool.quotefinder]\ndelta = 0.2\n")
    with pytest.raises(ConfigError, match="both .*quotefinder.toml and .*pyproject.toml"):
        load(tmp_path)


def test_a_key_the_verb_has_no_option_for_is_left_to_the_verbs_that_do() -> None:
    found = config.Config("quotefinder.toml", {"baseline": "runs/old", "delta": 0.05})
    assert vars(config.namespace(found, compare_parser(), system(DEFAULT_SYSTEM))) == {"delta": 0.05}
    assert vars(config.namespace(found, build_parser(), system(DEFAULT_SYSTEM))) == {
        "baseline": Path("runs/old"), "delta": 0.05}
    assert config.used(found, {"delta"}, config.namespace(found, build_parser(), system(DEFAULT_SYSTEM))) == (
        'from quotefinder.toml: baseline = "runs/old"',)


HOSTILE = {
    "arrays 100,000 deep": "at = " + "[" * 100_000 + "]" * 100_000 + "\n",
    "tables 100,000 deep": "at = " + "{a = " * 100_000 + "1" + "}" * 100_000 + "\n",
    "an integer of 5,000 digits": "max_wrong = " + "9" * 5000 + "\n",
    "a header of 100,000 parts": "[" + ".".join(["a"] * 100_000) + "]\nx = 1\n",
    "a key of 100,000 parts": ".".join(["a"] * 100_000) + " = 1\n",
    "a string of 10 MB": "at = '" + "x" * 10_000_000 + "'\n",
    "an unknown key of 10 MB": "x" * 10_000_000 + " = 1\n",
    "escape codes": "at = '\\u001b[2J\\u202e0.3,0.9'\nmax_wrong = 0\n",
    "more than a MiB": "# " + "x" * (1 << 20) + "\ndelta = 0.1\n",
    "not UTF-8": "delta = 0.1 # \xff\n",
}


@pytest.mark.parametrize("attack", list(HOSTILE))
def test_a_hostile_configuration_is_refused_in_bounded_time_with_one_short_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], attack: str) -> None:
    """Read with bounded effort (size, depth, digits, key parts) and said in one line of at most a few hundred
    characters, nothing that moves the terminal: exit 2, never a traceback, never a report."""
    import time

    monkeypatch.chdir(tmp_path)
    data = HOSTILE[attack].encode("utf-8", "surrogateescape") if attack != "not UTF-8" else b"delta = 0.1 # \xff\n"
    (tmp_path / "quotefinder.toml").write_bytes(data)
    started = time.monotonic()
    assert sweep(["runs/ten"]) == 2
    assert time.monotonic() - started < 2
    err = capsys.readouterr().err
    assert "quotefinder.toml" in err and "Traceback" not in err and "\x1b" not in err and "\u202e" not in err
    assert len(err) < 600 and err.count("\n") <= 2, err[:300]  # (argparse's usage line may come first)
    assert not (tmp_path / "reports").exists()


@pytest.mark.slow
def test_every_summary_names_the_configuration_it_used(ten: Path, standin_for, monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    """sweep, compare and monitor: the summary's "Options given" says `from quotefinder.toml: ...`."""
    from conftest import TEN_SCENARIO, env_for
    from quotefinder.commands.compare import main as compare
    from quotefinder.commands.monitor import main as monitor
    from quotefinder.evalcmd import main as eval_main
    from quotefinder.standin import load_scenario

    root = ten.parent.parent
    monkeypatch.chdir(root)
    shutil.copytree(ROOT / "runs" / "ten-terse-criteria", root / "runs" / "ten-terse-criteria")
    (root / "quotefinder.toml").write_text("delta = 0.2\nwrong_cost = 3\n")
    said = "`from quotefinder.toml: delta = 0.2`, `from quotefinder.toml: wrong_cost = 3`"
    assert sweep(["runs/ten", "--no-plots", "--out", "swept"]) == 0
    assert compare(["runs/ten", "runs/ten-terse-criteria", "--no-html", "--out", "compared"]) == 0
    server = standin_for(load_scenario(TEN_SCENARIO))
    assert eval_main(["--refresh", "runs/ten", "--run", "runs/ten-1", "--rate", "0", "--retries", "0", "--sample",
                      "4"], env=env_for(server)) == 0
    assert monitor(["runs/ten", "runs/ten-1", "--at", "0.3,0.6", "--max-wrong-rate", "0.5", "--out",
                    "watched"]) in (0, 1)
    for out in ("swept", "compared", "watched"):
        summary = Path(out, "summary.md").read_text(encoding="utf-8")
        assert "Options given" in summary and said in summary, out


def test_a_configuration_that_is_a_fifo_or_a_device_is_refused_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    import os

    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "quotefinder.toml")  # no writer: opening it the plain way would wait for ever
    assert sweep(["runs/ten"]) == 2 and "not a regular file" in capsys.readouterr().err
    (tmp_path / "quotefinder.toml").unlink()
    (tmp_path / "pyproject.toml").symlink_to("/dev/zero")
    assert sweep(["runs/ten"]) == 2 and "not a regular file" in capsys.readouterr().err


def test_a_pyproject_whose_tool_is_not_a_table_configures_nothing(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('tool = "x"\n')
    assert load(tmp_path) == config.Config()


def test_the_python_api_reads_the_configuration_as_the_command_does(ten: Path, monkeypatch: pytest.MonkeyPatch
                                                                    ) -> None:
    """The same file, the same result: `Run.sweep()` and `quotefinder sweep` in a folder with a configuration write
    the same decision and say the same options; what the call gives overrides the file, as a typed flag does."""
    import quotefinder

    root = ten.parent.parent
    monkeypatch.chdir(root)
    (root / "quotefinder.toml").write_text('wrong_cost = 3\ngrid = {has_answer = "0.2:0.5:0.1"}\nat = "0.3,0.6"\n'
                                           "max_wrong = 0\n")
    assert sweep(["runs/ten", "--no-plots", "--out", "by-command"]) in (0, 1)
    result = quotefinder.open_run("runs/ten").sweep()
    result.write_report("by-api")
    assert Path("by-api", "decision.json").read_text() == Path("by-command", "decision.json").read_text()
    assert summary_options("by-api") == summary_options("by-command") == (
        "- Options given: `from quotefinder.toml: wrong_cost = 3`, `from quotefinder.toml: grid = {has_answer = "
        '"0.2:0.5:0.1"}`, `from quotefinder.toml: at = "0.3,0.6"`, `from quotefinder.toml: max_wrong = 0`')
    typed = quotefinder.open_run("runs/ten").sweep(wrong_cost=4, grid={"has_answer": "0.3:0.4:0.1"})
    assert typed.decision["wrong_cost"] == 4.0
    assert typed.grid["has_answer_cutoff"].drop_duplicates().tolist() == [0.3, 0.4]
    (root / "quotefinder.toml").write_text("wrong_cost = -1\n")
    with pytest.raises(quotefinder.InputError, match=r"quotefinder.toml: wrong_cost = -1"):
        quotefinder.open_run("runs/ten").sweep()


def test_each_api_call_takes_the_keys_its_verb_takes() -> None:
    """A key is used by `Run.sweep`, `Run.drift` and `compare` exactly when the verb they mirror has its option
    (the drift's gates apart: the API checks none)."""
    from quotefinder import api
    from quotefinder.commands.drift import build_parser as drift_parser

    def keys(parser) -> set[str]:
        return set(config.KEYS) & {action.dest for action in parser._actions}

    assert keys(build_parser()) == api._SWEPT | api._GATES
    assert keys(drift_parser()) - api._GATES == api._DRIFTED
    assert keys(compare_parser()) == api._COMPARED
