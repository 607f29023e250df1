"""commands/aliases.py: `python sweep.py` and `python eval.py`, each command line of the old forms mapped onto its
verb, which does the rest: the same files, exit status and messages as the verb."""

from __future__ import annotations

from pathlib import Path

import pytest

from quotefinder import evalcmd, sweepcmd
from quotefinder.commands import main as quotefinder
from quotefinder.commands.aliases import eval_words, sweep_words


@pytest.mark.parametrize(("argv", "verb", "words"), [
    (["runs/ten"], "sweep", ["runs/ten"]),
    (["runs/ten", "--at", "0.3,0.9", "--max-wrong", "0"], "sweep", ["runs/ten", "--at", "0.3,0.9", "--max-wrong",
                                                                      "0"]),
    (["runs/ten", "--has-answer", "0:1:0.1", "--answer=0.5:1:0.1"], "sweep",
     ["runs/ten", "--grid", "has_answer=0:1:0.1", "--grid", "answer=0.5:1:0.1"]),
    (["runs/ten", "runs/ten-one-shot", "--no-plots"], "compare", ["runs/ten", "runs/ten-one-shot", "--no-plots"]),
    (["runs/new", "--drift"], "drift", ["runs/new"]),
    (["runs/new", "--drift", "runs/old", "--at", "0.3,0.9"], "drift", ["runs/new", "runs/old", "--at", "0.3,0.9"]),
    (["--out", "r", "runs/new", "--drift=runs/old"], "drift", ["runs/new", "runs/old", "--out", "r"]),
    (["--monitor", "runs/a", "runs/a-1", "--at", "0.3,0.9"], "monitor", ["runs/a", "runs/a-1", "--at", "0.3,0.9"]),
    (["runs/mine", "--review", "--baseline", "runs/b"], "review", ["runs/mine", "--baseline", "runs/b"]),
    (["--help"], "sweep", ["--help"]),
])
def test_each_sweep_py_command_line_is_one_verb(argv: list[str], verb: str, words: list[str]) -> None:
    assert sweep_words(argv) == (verb, words)


@pytest.mark.parametrize(("argv", "verb", "words"), [
    (["questions/ten.yaml"], "record", ["questions/ten.yaml"]),
    (["questions/ten.yaml", "--has-answer-range", "0.2:0.5"], "record",
     ["questions/ten.yaml", "--range", "has_answer=0.2:0.5"]),
    (["--refresh", "runs/ten", "--sample", "4", "--run", "runs/new"], "refresh",
     ["runs/ten", "--sample", "4", "--run", "runs/new"]),
    (["--sample", "4", "--refresh=runs/ten"], "refresh", ["runs/ten", "--sample", "4"]),
])
def test_each_eval_py_command_line_is_one_verb(argv: list[str], verb: str, words: list[str]) -> None:
    assert eval_words(argv) == (verb, words)


@pytest.mark.usefixtures("config_read")
def test_the_alias_and_the_verb_give_the_same_files_status_and_messages(ten: Path, monkeypatch, capsys) -> None:
    """In a folder with a project configuration (a gate that fails), `python sweep.py` and `quotefinder sweep` exit
    alike (1), write the same files and say the same, the configuration named in both summaries."""
    root = ten.parent.parent
    monkeypatch.chdir(root)
    (root / "quotefinder.toml").write_text('at = "0.3,0.9"\nmax_wrong = 0\nmin_correct = 99\n')
    assert sweepcmd.main(["runs/ten", "--no-plots", "--out", "alias"]) == 1
    alias = capsys.readouterr()
    assert quotefinder(["sweep", "runs/ten", "--no-plots", "--out", "verb"]) == 1
    verb = capsys.readouterr()
    assert alias.out.replace("alias/", "verb/") == verb.out and alias.err == verb.err
    for name in ("decision.json", "grid.csv", "questions.csv", "summary.md"):
        assert Path("alias", name).read_text() == Path("verb", name).read_text(), name
    assert "from quotefinder.toml: at" in Path("alias", "summary.md").read_text()
    assert sweepcmd.main(["runs/ten", "--at", "0.3,x", "--max-wrong", "0"]) == 2
    assert quotefinder(["sweep", "runs/ten", "--at", "0.3,x", "--max-wrong", "0"]) == 2
    first, second = capsys.readouterr().err.split("usage:")[1:3]
    assert first == second and "quotefinder sweep" in first
    assert evalcmd.main(["questions/ten.yaml", "--offline"], env={}) == 0
    assert "quotefinder record" not in capsys.readouterr().err
