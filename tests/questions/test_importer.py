"""Importing question sets: SQuAD 2.0 JSON, JSON Lines and CSV, accept patterns made from gold answers,
merging, sampling, and a clear error for every bad source."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT
from quotefinder.errors import QuestionFileError
from quotefinder.questions import Outcome, load_questions
from quotefinder.questions.__main__ import main
from quotefinder.questions.importer import accept_pattern, read_source, sample

SQUAD = ROOT / "data" / "squad2-dev-sample.json"


def test_the_shared_squad_sample_imports_with_every_gold_answer_matching(tmp_path: Path) -> None:
    out = tmp_path / "squad.yaml"
    assert main(["import", str(SQUAD), "--out", str(out)]) == 0
    questions = {q.question: q for q in load_questions(out).questions}
    data = json.loads(SQUAD.read_text())
    checked = 0
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                question = questions[" ".join(qa["question"].split())]
                assert question.expect == ("no-answer" if qa["is_impossible"] else "answer")
                for answer in qa["answers"]:
                    if re.search(r"\w", answer["text"]):
                        assert any(p.search(answer["text"]) for p in question.patterns), answer["text"]
                        context = paragraph["context"]  # quoted from the page, the answer sits in a sentence
                        assert any(p.search(context) for p in question.patterns)
                        assert question.judge(f"As the page says, {answer['text']}.") is Outcome.CORRECT
                        checked += 1
    assert checked > 600
    assert len(questions) == 429 and sum(q.expect == "no-answer" for q in questions.values()) == 222
    assert "56dde0379a695914005b9636" in {q.id for q in questions.values()}  # the source's ids
    header = out.read_text().split("questions:")[0]
    assert "SQuAD 2.0" in header and "CC BY-SA 4.0" in header and "same license" in header


@pytest.mark.parametrize(("answer", "quotes", "not_quotes"), [
    ("206", ["It has 206 bones.", "206"], ["It has 2060 bones.", "1206 in all"]),
    ("10,935 metres", ["about 10935 metres deep", "10,935  metres", "10,935\nMETRES"], ["110,935 metres"]),
    ("2500000", ["2,500,000 rivets", "2500000 rivets"], ["25000000 rivets"]),
    ("1,234.5", ["1234.5 km", "1,234.5 km"], ["1234.56"]),
    ("(b) the second", ["answer (b) the second one"], ["answer b the second"]),
    ("Norseman, Viking", ["a norseman, viking raider"], ["a Norseman Viking"]),
    ("U.S.", ["the U.S. army"], ["the US army"]),
    ("9th century", ["in the 9th century"], ["in the 19th century"]),
])
def test_an_accept_pattern_matches_its_answer_and_little_else(answer, quotes, not_quotes) -> None:
    pattern = re.compile(accept_pattern(answer), re.IGNORECASE)
    assert all(pattern.search(q) for q in quotes)
    assert not any(pattern.search(q) for q in not_quotes)


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=40).filter(lambda t: t.strip() and re.search(r"\w", t)))
def test_every_answer_text_matches_its_own_pattern_however_spaced_or_cased(answer: str) -> None:
    pattern = re.compile(accept_pattern(answer), re.IGNORECASE)
    spaced = "  ".join(answer.split())
    assert pattern.search(answer) and pattern.search(spaced)
    if all(len(c.upper()) == 1 for c in answer):  # 'ß' upper-cases to 'SS', which no regex case-folds to
        assert pattern.search(answer.upper())
    assert pattern.search(f"Quoted: {' '.join(answer.split())} here.")


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_json_lines_and_csv_define_the_same_question_sets(tmp_path: Path) -> None:
    lines = write(tmp_path / "q.jsonl", "\n".join(json.dumps(x) for x in [
        {"question": "How tall is the tower?", "id": "tower", "answers": ["330 m", "1,083 ft"]},
        {"question": "Who painted  the ceiling?", "expect": "no-answer"},
        {"question": "Why is the sky blue?"},
        {"question": "How tall is the tower?", "answers": "330 metres"},
    ]) + "\n\n")
    table = write(tmp_path / "q.csv", 'question,id,expect,answers\n'
                  'How tall is the tower?,tower,,330 m | "1,083 ft"\n'
                  'Who painted the ceiling?,,no-answer,\n'
                  'Why is the sky blue?,,,\n'
                  'How tall is the tower?,,,330 metres\n'.replace('"1,083 ft"', '1083 ft'))
    for source in (lines, table):
        found = read_source(source)
        assert [q.question for q in found.questions] == ["How tall is the tower?", "Who painted the ceiling?",
                                                        "Why is the sky blue?"]
        assert [q.expect for q in found.questions] == ["answer", "no-answer", None]  # answers imply answer
        assert found.merged == 1 and "330 metres" in found.questions[0].answers
    out = tmp_path / "from-csv.yaml"
    assert main(["import", str(table), "--out", str(out)]) == 0
    loaded = load_questions(out).questions
    assert [q.id for q in loaded] == ["tower", "who-painted-the-ceiling", "why-is-the-sky-blue"]
    assert loaded[2].expect is None and loaded[0].judge("The tower is 1,083 ft tall.") is Outcome.CORRECT


def test_a_csv_cell_holds_several_answers_and_a_literal_bar(tmp_path: Path) -> None:
    source = write(tmp_path / "q.csv", "question,answers\nWhich symbol?,a \\| b|pipe\n")
    assert read_source(source).questions[0].answers == ["a | b", "pipe"]


def test_conflicting_labels_merge_into_an_unlabelled_question(tmp_path: Path) -> None:
    source = write(tmp_path / "q.jsonl", '{"question": "Q?", "expect": "answer", "answers": ["x"]}\n'
                                         '{"question": "Q?", "expect": "no-answer"}\n')
    found = read_source(source)
    assert found.questions[0].expect is None and found.conflicts == ["Q?"]


def test_sampling_is_stratified_by_label_seeded_and_in_source_order() -> None:
    found = read_source(SQUAD)
    drawn = sample(found, 100, seed=3)
    answer, none, _ = drawn.counts()
    assert len(drawn.questions) == 100 and (answer, none) == (48, 52)  # 207/429 and 222/429 of 100, rounded
    assert [q.question for q in drawn.questions] == [q.question for q in sample(read_source(SQUAD), 100, 3).questions]
    order = {q.question: n for n, q in enumerate(read_source(SQUAD).questions)}
    assert [order[q.question] for q in drawn.questions] == sorted(order[q.question] for q in drawn.questions)
    assert drawn.questions != sample(read_source(SQUAD), 100, seed=4).questions
    assert len(sample(read_source(SQUAD), 1000).questions) == 429


@pytest.mark.parametrize(("name", "text", "message"), [
    ("q.txt", "anything", "unknown format '.txt'"),
    ("q.json", '{"data": [', "line 1: not valid JSON"),
    ("q.json", '{"version": "v2.0"}', "not SQuAD 2.0's layout"),
    ("q.json", '{"data": [{"paragraphs": [{"qas": [{"id": "x"}]}]}]}',
     r"record data\[0\]\.paragraphs\[0\]\.qas\[0\]: has no `question` text"),
    ("q.json", '{"data": [{"paragraphs": [{"qas": [{"question": "Q?", "is_impossible": "no"}]}]}]}',
     "`is_impossible` is 'no'"),
    ("q.json", '{"data": [{"paragraphs": [{"context": "c"}]}]}', r"paragraphs\[0\]: has no `qas` list"),
    ("q.jsonl", '{"question": "A?"}\nnot json\n', "line 2: not a JSON object"),
    ("q.jsonl", '{"question": "A?", "anwsers": ["x"]}\n', "line 1: unknown field `anwsers`; did you mean `answers`"),
    ("q.jsonl", '{"question": "A?", "expect": "yes"}\n', "`expect` is 'yes'"),
    ("q.jsonl", '{"id": "a"}\n', "line 1: has no `question` text"),
    ("q.jsonl", '{"question": "A?", "id": "a"}\n{"question": "B?", "id": "a"}\n', "id 'a' was already used"),
    ("q.csv", "Question,answer\nA?,x\n", "unknown field `answer`; did you mean `answers`"),
    ("q.csv", "id,answers\na,x\n", "the header has no `question` column"),
    ("q.csv", "question,answers\nA?,x,y\n", "line 2: has 3 cells"),
    ("q.csv", "question\n", "holds no questions"),
    ("q.jsonl", json.dumps({"question": "x" * 3000}) + "\n", "3,000 characters long"),
])
def test_a_bad_source_gets_an_error_naming_the_file_and_the_record(tmp_path: Path, name, text, message) -> None:
    source = write(tmp_path / name, text)
    with pytest.raises(QuestionFileError, match=message) as caught:
        read_source(source)
    assert str(source) in str(caught.value)


def test_the_command_refuses_to_overwrite_and_names_what_is_wrong(tmp_path: Path, capsys) -> None:
    out = tmp_path / "q.yaml"
    out.write_text("mine")
    assert main(["import", str(SQUAD), "--out", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err and out.read_text() == "mine"
    assert main(["import", str(SQUAD), "--out", str(out), "--force", "--sample", "20"]) == 0
    assert len(load_questions(out).questions) == 20 and "20 questions (sampled from 429)" in capsys.readouterr().out
    assert main(["import", str(SQUAD), "--out", str(tmp_path / "q.txt")]) == 2
    assert main(["import", str(tmp_path / "missing.json"), "--out", str(tmp_path / "x.yaml")]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "latin1.csv").write_bytes("question\nCafé?\n".encode("latin-1"))
    assert main(["import", str(tmp_path / "latin1.csv"), "--out", str(tmp_path / "y.yaml")]) == 2
    assert "line 2: not UTF-8" in capsys.readouterr().err
    assert main(["import", str(SQUAD), "--out", str(tmp_path / "z.yaml"), "--sample", "0"]) == 2


def test_a_sample_larger_than_the_source_is_refused_naming_the_source_and_both_sizes(tmp_path: Path,
                                                                                      capsys) -> None:
    """--sample N asks for N questions drawn at random: with fewer in the source the user cannot get that
    sample, so nothing is written and the message says how many there are (after merging) and what to give."""
    out = tmp_path / "q.yaml"
    assert main(["import", str(SQUAD), "--out", str(out), "--sample", "1000"]) == 2
    assert (f"import: {SQUAD}: --sample 1000 asks for more questions than the source holds: 429 (430 read, 1 "
            "merged into one of the same text). Give --sample 429 or fewer, or leave --sample out to import every "
            "question") in capsys.readouterr().err
    assert not out.exists()
    assert main(["import", str(SQUAD), "--out", str(out), "--sample", "429"]) == 0  # exactly all of them: fine
    assert len(load_questions(out).questions) == 429
