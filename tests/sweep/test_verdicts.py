"""Human verdicts: their file, their precedence in judging, and the review that asks for them."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from conftest import page, record, write_questions, write_scenario
from quotefinder.errors import QuestionFileError
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
