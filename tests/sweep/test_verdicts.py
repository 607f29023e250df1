"""Human verdicts: their file, their precedence in judging, and the review that asks for them."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import mutations, page, record, write_questions, write_scenario
from quotefinder.core.errors import QuestionFileError
from quotefinder.questions import Outcome, Question, load_questions
from quotefinder.sweep.verdicts import Judgements, load_verdicts, save_verdicts, verdicts_path, with_verdicts
from quotefinder.sweepcmd import main


def test_verdicts_live_beside_the_question_file() -> None:
    assert verdicts_path(Path("questions/ten.yaml")) == Path("questions/ten.verdicts.yaml")


def test_a_verdict_decides_before_the_patterns_and_never_on_a_no_answer_question() -> None:
    answer = Question("a", "How many?", "answer", (r"\b206\b",), verdicts={"There are 207.": Outcome.CORRECT,
                                                                         "There are 206.": Outcome.WRONG})
    assert answer.judge("There are 207.") is Outcome.CORRECT
    assert answer.judge("There are 206.") is Outcome.WRONG
    assert answer.judge("Another 206 here.") is Outcome.CORRECT
    unpatterned = Question("b", "Why?", "answer", verdicts={"Because.": Outcome.CORRECT})
    assert unpatterned.judge("Because.") is Outcome.CORRECT and unpatterned.judge("Other.") is Outcome.UNJUDGED
    none = Question("c", "Who?", "no-answer", verdicts={"Nobody.": Outcome.CORRECT})
    assert none.judge("Nobody.") is Outcome.WRONG


def test_saving_and_loading_round_trip_sorted(tmp_path: Path) -> None:
    questions = load_questions(write_questions(tmp_path / "q.yaml", "questions:\n  - {id: b, question: Why?, "
                                                                     "expect: answer}\n"))
    path = tmp_path / "q.verdicts.yaml"
    verdicts = {("Why?", "Because: \"it is\" | so."): Outcome.CORRECT, ("Why?", "Aardvark."): Outcome.WRONG}
    save_verdicts(path, Judgements(verdicts), questions)
    assert load_verdicts(path) == Judgements(verdicts)
    text = path.read_text()
    assert text.index("Aardvark") < text.index("Because") and "id: b" in text
    attached = with_verdicts(questions, Judgements(verdicts))
    assert attached.questions[0].judge("Aardvark.") is Outcome.WRONG


def test_invisible_characters_in_a_quote_show_in_the_file_and_read_back_exactly(tmp_path: Path) -> None:
    questions = load_questions(write_questions(tmp_path / "q.yaml", "questions:\n  - {question: Why?}\n"))
    path = tmp_path / "q.verdicts.yaml"
    reordered = "Paid \u202e0001$\u202c in full\u200b, café."  # shows as "Paid $1000 in full" in an editor
    verdicts = {("Why?", reordered): Outcome.WRONG, ("Why?", "Plain café."): Outcome.CORRECT}
    save_verdicts(path, Judgements(verdicts), questions)
    text = path.read_text(encoding="utf-8")
    assert "\u202e" not in text and "\u200b" not in text
    assert '"Paid \\u202E0001$\\u202C in full\\u200B, caf\\xE9."' in text  # YAML escapes, visible to the editor
    assert "quote: Plain café." in text  # text without hidden characters stays plain
    assert load_verdicts(path) == Judgements(verdicts)


def test_a_label_gives_an_unlabelled_question_its_expect_and_never_contradicts_the_file(tmp_path: Path) -> None:
    questions = load_questions(write_questions(tmp_path / "q.yaml", "questions:\n  - {id: u, question: Who?}\n"
                                                                     "  - {id: l, question: Why?, expect: answer}\n"))
    path = tmp_path / "q.verdicts.yaml"
    save_verdicts(path, Judgements(labels={"Who?": "no-answer", "Why?": "answer"}), questions)
    assert load_verdicts(path).labels == {"Who?": "no-answer", "Why?": "answer"}
    attached = with_verdicts(questions, load_verdicts(path))
    assert [q.expect for q in attached.questions] == ["no-answer", "answer"]
    assert attached.questions[0].judge("Somebody.") is Outcome.WRONG
    with pytest.raises(QuestionFileError, match="labels 'l' `no-answer` but .*says `answer`"):
        with_verdicts(questions, Judgements(labels={"Why?": "no-answer"}))


@pytest.mark.parametrize(("text", "message"), [
    ("verdicts:\n  - {question: Why?, quote: So., verdict: maybe}\n", "line 2: verdict 1 says `maybe`"),
    ("verdicts:\n  - {question: Why?, verdict: correct}\n", "verdict 1 has no `quote:`"),
    ("verdicts:\n  - {question: Why?, quote: So., verdict: correct, note: x}\n", "unknown key `note`"),
    ("verdicts: {question: Why?}\n", "must be a list"),
    ("judgements: []\n", "unknown key `judgements`"),
    ("labels:\n  - {question: Why?, expect: maybe}\n", "line 2: label 1 says `expect: maybe`"),
    ("labels:\n  - {question: Why?}\n", "label 1 has no `expect:`"),
])
def test_a_bad_verdict_file_names_the_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "q.verdicts.yaml"
    path.write_text(text)
    with pytest.raises(QuestionFileError, match=message):
        load_verdicts(path)


UNJUDGED_PAGE = "The bridge was opened to traffic in the spring of 1937. It carries six lanes of traffic today."


def unjudged_run(tmp_path: Path, standin_for) -> tuple[Path, Path]:
    """A run whose one question has no accept patterns, so its quotes need a human."""
    scenario = {"When did the bridge open?": [
        page("Bridge", "https://bridge.example", UNJUDGED_PAGE, choice=1, has_answer=0.9, answers=0.7),
        page("Paint", "https://paint.example", "Crews repaint it every year without a pause. It is painted a "
             "colour called International Orange.", choice=2, has_answer=0.5, answers=0.9),
    ]}
    server = standin_for(write_scenario(tmp_path / "s.json", scenario))
    questions = write_questions(tmp_path / "q.yaml", "questions:\n  - {id: bridge, question: When did the bridge "
                                                      "open?, expect: answer}\n")
    assert record(tmp_path / "run", questions, server) == 0
    return tmp_path / "run", questions


def test_review_asks_for_every_unjudged_quote_on_the_grid_and_saves_each_answer(tmp_path, standin_for,
                                                                                  monkeypatch, capsys) -> None:
    run, questions = unjudged_run(tmp_path, standin_for)
    monkeypatch.setattr("sys.stdin", io.StringIO("maybe\nw\nc\n"))  # asked: the paint sentence, then the date
    assert main([str(run), "--review", "--no-plots", "--out", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert "1 question(s) on the grid need a label or a verdict (2 quote(s) among them)" in out
    assert "please answer c, w, s or q" in out and "The bridge was opened to traffic in the spring of 1937." in out
    verdicts = load_verdicts(verdicts_path(questions)).verdicts
    assert verdicts == {
        ("When did the bridge open?", "The bridge was opened to traffic in the spring of 1937."): Outcome.CORRECT,
        ("When did the bridge open?", "It is painted a colour called International Orange."): Outcome.WRONG,
    }
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert "| unjudged |" not in summary  # the report made after the review uses the new verdicts
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main([str(run), "--review", "--no-plots", "--out", str(tmp_path / "r")]) == 0
    assert "0 question(s) on the grid need a label or a verdict" in capsys.readouterr().out


def test_ctrl_c_during_a_review_keeps_what_was_saved(tmp_path, standin_for, monkeypatch, capsys) -> None:
    run, questions = unjudged_run(tmp_path, standin_for)
    answers = iter(["w"])

    def ask(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise KeyboardInterrupt from None

    monkeypatch.setattr("builtins.input", ask)
    assert main([str(run), "--review", "--no-plots", "--out", str(tmp_path / "r")]) == 0
    assert len(load_verdicts(verdicts_path(questions)).verdicts) == 1


def test_skip_quit_and_end_of_input_save_nothing_more(tmp_path, standin_for, monkeypatch, capsys) -> None:
    run, questions = unjudged_run(tmp_path, standin_for)
    monkeypatch.setattr("sys.stdin", io.StringIO("s\nq\n"))
    assert main([str(run), "--review", "--no-plots", "--out", str(tmp_path / "r")]) == 0
    assert not verdicts_path(questions).exists()
    monkeypatch.setattr("sys.stdin", io.StringIO("w\n"))  # then the input ends
    assert main([str(run), "--review", "--no-plots", "--out", str(tmp_path / "r")]) == 0
    assert len(load_verdicts(verdicts_path(questions)).verdicts) == 1
    assert "1 answer(s) saved" in capsys.readouterr().out


# ---- mistakes in a verdicts file are errors naming its line -----------------------------------------------

QUESTIONS = """\
questions:
  - {id: bones, question: How many bones?, expect: answer}
  - {id: ghost, question: Who haunts it?, expect: no-answer}
  - {id: open, question: Why is it open?}
"""


@pytest.mark.parametrize(("text", "message"), [
    pytest.param("verdicts:\n  - {question: How many bones?, quote: '206.', verdict: correct}\n"
                 "  - {question: How many bones?, quote: '206.', verdict: wrong}\n",
                 r"line 3: a second verdict on the quote '206\.' of 'How many bones\?' \(`wrong`; line 2 says "
                 r"`correct`\)", id="two verdicts on one quote"),
    pytest.param("verdicts:\n  - {question: How many bones?, quote: '206.', verdict: correct}\n"
                 "  - {question: How many bones?, quote: '206.', verdict: correct}\n",
                 r"line 3: a second verdict on the quote '206\.'", id="the same verdict twice"),
    pytest.param("labels:\n  - {question: Why is it open?, expect: answer}\n"
                 "  - {question: Why is it open?, expect: no-answer}\n",
                 r"line 3: a second label for 'Why is it open\?' \(`no-answer`; line 2 says `answer`\)",
                 id="two labels for one question"),
    pytest.param("verdicts:\n  - question: How many bones?\n    quote: '206.'\n    verdict: correct\n"
                 "    verdict: wrong\n",
                 r"line 5: `verdict` appears twice in verdict 1", id="a key twice in one verdict"),
    pytest.param("labels: []\nverdicts: []\nlabels: []\n", r"line 3: `labels` appears twice", id="a list twice"),
])
def test_a_verdicts_file_that_says_two_things_about_one_quote_or_question_is_refused(tmp_path: Path, text,
                                                                                   message) -> None:
    path = tmp_path / "q.verdicts.yaml"
    path.write_text(text)
    with pytest.raises(QuestionFileError, match=f"^{path}, {message}"):
        load_verdicts(path)


@pytest.mark.parametrize(("text", "message"), [
    pytest.param("verdicts:\n  - {question: Who haunts it?, quote: Nobody., verdict: correct}\n",
                 r"line 2: a verdict on a quote of 'Who haunts it\?', which expects no answer \(QFILE, line 3\): every "
                 "quote on it is wrong", id="a verdict on a no-answer question"),
    pytest.param("labels:\n  - {question: Why is it open?, expect: no-answer}\n"
                 "verdicts:\n  - {question: Why is it open?, quote: Because., verdict: correct}\n",
                 r"line 4: a verdict on a quote of 'Why is it open\?', which expects no answer \(labelled so on "
                 r"line 2\)",
                 id="a verdict on a question labelled no-answer"),
    pytest.param("verdicts:\n  - {question: How many bone?, quote: '206.', verdict: correct}\n",
                 r"line 2: 'How many bone\?' is not a question of QFILE; did you mean 'How many bones\?'",
                 id="a misspelt question"),
    pytest.param("verdicts:\n  - {question: 'How many bones? ', quote: '206.', verdict: correct}\n",
                 r"line 2: 'How many bones\? ' is not a question of QFILE; did you mean 'How many bones\?'",
                 id="a padded question"),
    pytest.param("labels:\n  - {question: Why is it closed?, expect: answer}\n",
                 r"line 2: 'Why is it closed\?' is not a question of QFILE", id="a label on no question"),
    pytest.param("labels:\n  - {question: How many bones?, expect: no-answer}\n",
                 r"line 2: labels 'bones' `no-answer` but QFILE, line 2 says `answer`", id="a contradicting label"),
])
def test_a_verdict_or_label_the_question_file_cannot_take_is_refused_naming_both_lines(tmp_path: Path, text,
                                                                                      message) -> None:
    questions = load_questions(write_questions(tmp_path / "q.yaml", QUESTIONS))
    path = verdicts_path(questions.path)
    path.write_text(text)
    judgements = load_verdicts(path)
    with pytest.raises(QuestionFileError, match=f"^{re.escape(str(path))}, " + message.replace(
            "QFILE", re.escape(str(questions.path)))):
        with_verdicts(questions, judgements)


def test_a_label_contradicting_a_recorded_question_cites_the_question_files_real_line(ten: Path, capsys) -> None:
    """A sweep judges with the questions run.json recorded (no parse when the file is unchanged); the error still
    cites the line of the question file, not `line 0`."""
    from conftest import TEN_QUESTIONS

    labelled = next(q for q in load_questions(TEN_QUESTIONS).questions if q.expect == "answer")
    other = ten.parent.parent / "questions" / "ten.verdicts.yaml"
    other.write_text(f"labels:\n  - {{question: '{labelled.question}', expect: no-answer}}\n")
    assert main([str(ten), "--no-plots", "--out", str(ten.parent.parent / "r")]) == 2
    err = capsys.readouterr().err
    assert f"ten.verdicts.yaml, line 2: labels {labelled.id!r} `no-answer` but " in err, err
    assert f"questions/ten.yaml, line {labelled.line} says `answer`" in err, err
    assert "line 0" not in err


@pytest.mark.parametrize("text", [pytest.param("verdicts: " + "[" * 200_000, id="flow sequences"),
                                  pytest.param("labels:\n" + "- " * 60_000 + "x\n", id="block sequences")])
def test_a_verdicts_file_nested_too_deeply_is_refused_clearly(tmp_path: Path, text: str) -> None:
    """In a child process: before the fix the YAML parser overflowed the C stack and killed the interpreter."""
    path = tmp_path / "q.verdicts.yaml"
    path.write_text(text)
    code = ("import sys\nfrom pathlib import Path\nfrom quotefinder.sweep.verdicts import load_verdicts\n"
            "try:\n    load_verdicts(Path(sys.argv[1]))\nexcept Exception as error:\n"
            "    print(type(error).__name__, error)\n")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"the loader crashed (exit {done.returncode})"
    # our own depth check, or (libyaml builds that have one) the parser's: either way a clear error, no crash
    assert done.stdout.startswith(f"QuestionFileError {path}, line ")
    assert "nested more than" in done.stdout or "nesting depth" in done.stdout


# Property-based: random and mutated versions of a valid verdicts file. QUOTEFINDER_FUZZ_EXAMPLES=5000 runs longer.
FUZZ = settings(max_examples=int(os.environ.get("QUOTEFINDER_FUZZ_EXAMPLES", "150")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
VALID = ("labels:\n  - {id: open, question: Why is it open?, expect: answer}\nverdicts:\n  - id: bones\n"
         "    question: How many bones?\n    quote: \"It has 206 \\u202E bones.\"\n    verdict: correct\n"
         "  - {question: Why is it open?, quote: 'Because.', verdict: wrong}\n")
PIECES = st.one_of(st.sampled_from(["labels:", "verdicts:", "\n", "  - ", "question: ", "quote: ", "verdict: ",
                                    "expect: ", "correct", "wrong", "answer", "no-answer", "id: ", "[", "]", "{", "}",
                                    ",", "'", '"', "&a ", "*a", "!!binary ", "---", "#", ": ", "\t", "\x00",
                                    "How many bones?", "Why is it open?", "Who haunts it?", "[" * 3000, "- " * 3000,
                                    "\\uD800", "\ufeff"]),
                   st.text(max_size=6))


def mutated(text: str) -> st.SearchStrategy[str]:
    """`text` with a few pieces inserted, deleted or replaced at random places."""
    return mutations(text, PIECES)


@FUZZ
@given(st.one_of(mutated(VALID), st.lists(PIECES, max_size=30).map("".join)))
def test_a_mutated_verdicts_file_loads_or_is_refused_with_the_projects_own_error(tmp_path_factory, text: str) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    questions = load_questions(write_questions(folder / "q.yaml", QUESTIONS))
    path = verdicts_path(questions.path)
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        attached = with_verdicts(questions, load_verdicts(path))
    except QuestionFileError as error:
        assert str(path) in str(error)
    else:
        assert [q.question for q in attached.questions] == [q.question for q in questions.questions]
