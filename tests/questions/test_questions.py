"""Question files: strict loading with errors that name the line, and the judging rules."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TEN_QUESTIONS, mutations, write_questions
from quotefinder.core.errors import QuestionFileError
from quotefinder.questions import Outcome, Question, derive_id, load_questions


def test_the_committed_ten_questions_load() -> None:
    loaded = load_questions(TEN_QUESTIONS)
    assert len(loaded.questions) == 10 and len(loaded.sha256) == 64
    assert [q.expect for q in loaded.questions].count("no-answer") == 4


def test_ids_are_derived_when_absent(tmp_path: Path) -> None:
    path = write_questions(tmp_path / "q.yaml", """\
        questions:
          - question: How deep is the Mariana Trench?
            expect: answer
    """)
    [question] = load_questions(path).questions
    assert question.id == "how-deep-is-the-mariana-trench" and question.line == 2
    assert derive_id("?!") and derive_id("?!") != derive_id("¿¡")


BAD = {
    "empty": ("", "is empty"),
    "not a mapping": ("- question: x\n", "the file must be a mapping"),
    "no questions key": ("items: []\n", "unknown key `items`"),
    "not a list": ("questions: {question: x}\n", "line 1: `questions:` must be a list"),
    "empty list": ("questions: []\n", "`questions:` is empty"),
    "entry not a mapping": ("questions:\n  - just text\n", "line 2: question 1 must be a mapping"),
    "missing question": ("questions:\n  - expect: answer\n", "line 2: question 1 has no `question:` text"),
    "empty question": ("questions:\n  - question: '  '\n    expect: answer\n", "question 1's `question` is empty"),
    "question not text": ("questions:\n  - question: 42\n    expect: answer\n", "must be text"),
    "accept without expect": ("questions:\n  - {question: Why?, accept: [x]}\n", "write `expect: answer`"),
    "bad expect": ("questions:\n  - question: Why?\n    expect: maybe\n",
                   "line 3: question 1 ('Why?') has `expect: maybe`"),
    "expect yes/no boolean": ("questions:\n  - question: Why?\n    expect: no\n", "must be text"),
    "typo key": ("questions:\n  - question: Why?\n    expect: answer\n    acept: [x]\n", "unknown key `acept`"),
    "accept not a list": ("questions:\n  - question: Why?\n    expect: answer\n    accept: '206'\n",
                          "must be a list of regexes"),
    "bad regex": ("questions:\n  - question: Why?\n    expect: answer\n    accept: ['(206']\n",
                  "line 4: question 1 ('Why?') has an invalid regex"),
    "accept on no-answer": ("questions:\n  - question: Why?\n    expect: no-answer\n    accept: [x]\n",
                            "can never apply"),
    "duplicate key": ("questions:\n  - question: Why?\n    question: How?\n    expect: answer\n", "appears twice"),
    "duplicate id": ("questions:\n  - {id: a, question: Why?, expect: answer}\n"
                     "  - {id: a, question: How?, expect: answer}\n", "line 3: duplicate id 'a', first used on line 2"),
    "duplicate derived id": ("questions:\n  - {question: Why?, expect: answer}\n"
                             "  - {question: Why?, expect: no-answer}\n", "duplicate id"),
    "id not text": ("questions:\n  - {id: [1], question: Why?, expect: answer}\n", "`id` must be text"),
    "yaml syntax": ("questions:\n  - question: [unclosed\n", "not valid YAML"),
    "two documents": ("questions: []\n---\nquestions: []\n", "not valid YAML"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_files_get_an_error_naming_the_file_and_the_problem(tmp_path: Path, case: str) -> None:
    text, message = BAD[case]
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(QuestionFileError) as caught:
        load_questions(path)
    assert str(path) in str(caught.value)
    assert message in str(caught.value)


def test_duplicate_questions_with_explicit_ids_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "q.yaml"
    path.write_text("questions:\n  - {id: a, question: Why?, expect: answer}\n"
                    "  - {id: b, question: Why?, expect: no-answer}\n", encoding="utf-8")
    with pytest.raises(QuestionFileError, match="duplicate question 'Why\\?'"):
        load_questions(path)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(QuestionFileError, match="no such file"):
        load_questions(tmp_path / "missing.yaml")
    with pytest.raises(QuestionFileError, match="is a directory"):
        load_questions(tmp_path)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("questions:\n  - question: Caf\u00e9?\n".encode("latin-1"))
    with pytest.raises(QuestionFileError, match="line 2: not UTF-8"):
        load_questions(latin)


def test_judging_rules() -> None:
    answer = Question("a", "How many?", "answer", (r"\b206\b",))
    unjudged = Question("u", "How many?", "answer")
    none = Question("n", "How many?", "no-answer")
    assert answer.judge("There are 206 bones.") is Outcome.CORRECT
    assert answer.judge("There are 2060 bones.") is Outcome.WRONG
    assert answer.judge(None) is Outcome.MISSED
    assert unjudged.judge("Anything at all.") is Outcome.UNJUDGED
    assert none.judge("Anything at all.") is Outcome.WRONG
    assert none.judge(None) is Outcome.NO_ANSWER
    assert Question("c", "q", "answer", ("ABC",)).judge("abc") is Outcome.CORRECT  # case-insensitive


YAML_TOKENS = st.sampled_from([
    "questions:", "\n", "  - ", "question: ", "expect: ", "answer", "no-answer", "accept: ", "id: ", "[", "]", "{", "}",
    ",", "'", '"', "(", "\\", "*", "&a ", "*a", "!!binary ", "---", "#", ": ", "\t", "\x00", "é", "How many?", "42",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(YAML_TOKENS, max_size=40).map("".join))
def test_the_loader_never_fails_with_anything_but_its_own_error(tmp_path_factory, text: str) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "q.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        loaded = load_questions(path)
    except QuestionFileError as error:
        assert str(path) in str(error)
    else:
        assert loaded.questions and all(q.expect in ("answer", "no-answer") for q in loaded.questions)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_the_loader_survives_arbitrary_bytes(tmp_path_factory, raw: bytes) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "q.yaml"
    path.write_bytes(raw)
    with contextlib.suppress(QuestionFileError):
        load_questions(path)


def test_a_ten_megabyte_file_is_refused_quickly_and_clearly(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("questions:\n  - expect: answer\n    question: " + "a" * 10_000_000 + "\n", encoding="utf-8")
    with pytest.raises(QuestionFileError, match="line 3: question 1 is 10,000,000 characters long"):
        load_questions(path)
    path.write_bytes(b"\xff" * 10_000_000)
    with pytest.raises(QuestionFileError, match="not UTF-8"):
        load_questions(path)


def test_a_question_without_expect_is_unlabelled(tmp_path: Path) -> None:
    path = write_questions(tmp_path / "q.yaml", "questions:\n  - question: Why is the sky blue?\n")
    [question] = load_questions(path).questions
    assert question.expect is None
    assert question.judge("Because of Rayleigh scattering.") is Outcome.UNLABELLED
    assert question.judge(None) is Outcome.UNLABELLED


# ---- inputs that break a parser ---------------------------------------------------------------------------

def load_in_a_child(path: Path, loader: str = "quotefinder.questions:load_questions") -> str:
    """What loading `path` prints in a child process: the error's type and message, or `loaded`. A parser that
    crashes the interpreter (a C stack overflow) fails the assertion on the exit status, not the test session."""
    module, name = loader.split(":")
    code = (f"import sys\nfrom pathlib import Path\nfrom {module} import {name}\n"
            f"try:\n    {name}(Path(sys.argv[1]))\nexcept Exception as error:\n    print(type(error).__name__, error)\n"
            "else:\n    print('loaded')\n")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"the loader crashed (exit {done.returncode}): {done.stderr[-500:]}"
    return done.stdout


@pytest.mark.parametrize("text", [
    pytest.param("questions: " + "[" * 200_000, id="flow sequences"),
    pytest.param("questions: " + "[" * 60_000 + "]" * 60_000 + "\n", id="closed flow sequences"),
    pytest.param("questions:\n  - question: Why?\n    accept: " + "{a: " * 60_000 + "\n", id="flow mappings"),
    pytest.param("questions:\n" + "- " * 60_000 + "x\n", id="block sequences"),
])
def test_a_question_file_nested_too_deeply_is_refused_clearly(tmp_path: Path, text: str) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text(text, encoding="utf-8")
    shown = load_in_a_child(path)
    # our own depth check, or (libyaml builds that have one) the parser's: either way a clear error, no crash
    assert shown.startswith(f"QuestionFileError {path}, line ") and ("nested more than" in shown
                                                                      or "nesting depth" in shown), shown


@pytest.mark.parametrize("pattern", [pytest.param("(" * 100_000 + ")" * 100_000, id="nested groups"),
                                     pytest.param("a{99999999999}", id="a huge repeat")])
def test_a_regex_that_breaks_the_regex_compiler_is_refused_clearly(tmp_path: Path, pattern: str) -> None:
    path = write_questions(tmp_path / "q.yaml", f"questions:\n  - question: Why?\n    expect: answer\n"
                                                f"    accept: ['{pattern}']\n")
    with pytest.raises(QuestionFileError, match="line 4: question 1 \\('Why\\?'\\) has an invalid regex"):
        load_questions(path)


# Property-based: random and mutated versions of a valid file. QUOTEFINDER_FUZZ_EXAMPLES=5000 runs longer.
FUZZ = settings(max_examples=int(os.environ.get("QUOTEFINDER_FUZZ_EXAMPLES", "150")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PIECES = st.one_of(YAML_TOKENS, st.text(max_size=6), st.sampled_from(["[" * 3000, "- " * 3000, "{a: " * 3000,
                                                                     "(" * 3000, "a{9999999999}", "\\uD800", "\ufeff"]))


def mutated(text: str) -> st.SearchStrategy[str]:
    """`text` with a few pieces inserted, deleted or replaced at random places."""
    return mutations(text, PIECES)


@FUZZ
@given(st.one_of(mutated(TEN_QUESTIONS.read_text(encoding="utf-8")), st.lists(PIECES, max_size=30).map("".join)))
def test_a_mutated_question_file_loads_or_is_refused_with_the_projects_own_error(tmp_path_factory, text: str) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "q.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        loaded = load_questions(path)
    except QuestionFileError as error:
        assert str(path) in str(error)
    else:
        assert all(q.question.strip() and q.id.strip() for q in loaded.questions)


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_a_question_file_that_is_a_device_or_a_fifo_is_refused_at_once(tmp_path: Path, special: str) -> None:
    path = tmp_path / "q.yaml"
    if special == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(special)
    with pytest.raises(QuestionFileError, match="cannot be read \\(not a regular file\\)"):
        load_questions(path)
