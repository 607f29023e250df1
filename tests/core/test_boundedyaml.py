"""Every YAML a user gives (pipeline, question and verdicts files) is read with bounded effort: explicit tags,
alias bombs, huge numbers and values a constructor chokes on are refused with the file and the line, never a
traceback, and no message shows more than a cut of a value."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import TEN_QUESTIONS
from quotefinder.core.errors import InputError, QuestionFileError
from quotefinder.core.pipelinefile import load_pipeline_file
from quotefinder.evalcmd import main as eval_main
from quotefinder.questions import load_questions
from quotefinder.sweep.verdicts import load_verdicts

MEMORY_LIMIT = 512 * 2**20  # bytes of address space for a child that reads a bomb: the interpreter needs ~150 MiB


def alias_bomb(levels: int = 9) -> str:
    """A few hundred bytes whose aliases repeat one list 9**levels times over."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for n in range(1, levels):
        lines.append(f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]")
    return "\n".join(lines) + "\n"


# Each loader, and where in its file a hostile value goes (`{}`): what its reader reads there
LOADERS = {
    "pipeline": (load_pipeline_file, "model: {}\n"),
    "questions": (load_questions, "questions:\n  - question: {}\n"),
    "verdicts": (load_verdicts, "verdicts:\n  - {{question: Why?, quote: So., verdict: {}}}\n"),
}
HOSTILE = {
    "float": ("!!float abc", "line 1: an explicit YAML tag"),
    "int": ("!!int abc", "line 1: an explicit YAML tag"),
    "bool": ("!!bool abc", "line 1: an explicit YAML tag"),
    "timestamp": ("!!timestamp abc", "line 1: an explicit YAML tag"),
    "local tag": ("!thing abc", "line 1: an explicit YAML tag"),
    "5,000 digits": ("9" * 5000, "line 1: a number of 5,000 characters; at most 32"),
    "a huge float": ("1." + "9" * 5000, "line 1: a number of 5,002 characters"),
}


def on_line_of(text: str, value: str) -> tuple[str, int]:
    """`text` with `value` in it, and the line `value` is on."""
    filled = text.format(value)
    return filled, filled[: filled.index(value)].count("\n") + 1


@pytest.mark.parametrize("loader", LOADERS)
@pytest.mark.parametrize("hostile", HOSTILE)
def test_tags_and_huge_numbers_are_refused_naming_the_file_and_line(tmp_path: Path, loader: str, hostile: str) -> None:
    load, template = LOADERS[loader]
    value, message = HOSTILE[hostile]
    text, line = on_line_of(template, value)
    path = tmp_path / "x.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as raised:
        load(path)
    assert str(raised.value).startswith(f"{path}, line {line}: "), raised.value
    assert message.split(": ", 1)[1] in str(raised.value)
    assert len(str(raised.value)) < 300 and "9999" not in str(raised.value)  # the value is never shown


@pytest.mark.parametrize("value, problem", [("2001-13-45", "month must be in 1..12"),
                                            ("0x_", "invalid literal for int()")])
def test_a_value_yaml_reads_but_cannot_build_is_refused_with_its_line(tmp_path: Path, value: str,
                                                                      problem: str) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(f"name: x\nmodel: {value}\n", encoding="utf-8")
    with pytest.raises(InputError, match=f"line 2: not valid YAML \\(cannot read the value: {problem}"):
        load_pipeline_file(path)


def test_an_alias_inside_its_own_value_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("search: &a {max_results: *a}\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 1: an alias inside the value it names"):
        load_pipeline_file(path)


def test_a_few_aliases_are_read(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text('rank:\n  has_answer:\n    criteria: &c {"true": "Yes.", "false": "No."}\n'
                    "compare:\n  criteria: *c\n", encoding="utf-8")
    _, pipeline = load_pipeline_file(path)
    assert pipeline.compare_criteria == pipeline.has_answer_criteria
    assert pipeline.compare_criteria.true == "Yes."


@pytest.mark.parametrize("loader", LOADERS)
def test_an_alias_bomb_is_refused_in_bounded_memory(tmp_path: Path, loader: str) -> None:
    """Run in a child whose address space is capped: a loader that expands the bomb dies of MemoryError."""
    load, template = LOADERS[loader]
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb() + template.format("x"), encoding="utf-8")
    code = (
        "import resource, sys\n"
        "from pathlib import Path\n"
        f"from {load.__module__} import {load.__name__} as load\n"
        f"resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT}))\n"
        "try:\n    load(Path(sys.argv[1]))\n"
        "except Exception as error:\n    print(type(error).__name__, error)\n"
        "else:\n    print('loaded')\n")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.startswith(("InputError", "QuestionFileError")), done.stdout[:500]
    assert f"{path}, line " in done.stdout and "aliases (`*name`) repeat more than" in done.stdout, done.stdout[:500]


def test_a_huge_value_is_cut_before_its_message_is_made(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(f"system: quote-answer\ntier: {'x' * 500_000}\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 2: `tier` is 'x") as raised:
        load_pipeline_file(path)
    assert len(str(raised.value)) < 300


def test_a_question_file_of_a_huge_duplicate_id_is_named_short(tmp_path: Path) -> None:
    path = tmp_path / "q.yaml"
    qid = "i" * 100_000
    path.write_text(f"questions:\n  - {{id: {qid}, question: A?}}\n  - {{id: {qid}, question: B?}}\n",
                    encoding="utf-8")
    with pytest.raises(QuestionFileError, match="line 3: duplicate id 'iii") as raised:
        load_questions(path)
    assert len(str(raised.value)) < 300


def test_eval_exits_2_naming_the_line_of_a_hostile_pipeline_file(tmp_path: Path, capsys) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad\nsearch: {max_results: " + "9" * 5000 + "}\n", encoding="utf-8")
    assert eval_main([str(TEN_QUESTIONS), "--pipeline", str(path), "--offline", "--run", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert f"{path}, line 2: a number of 5,000 characters" in err and "Traceback" not in err
