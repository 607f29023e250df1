"""Importing question sets: SQuAD 2.0 JSON, JSON Lines and CSV, accept patterns made from gold answers,
merging, sampling, and a clear error for every bad source."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from conftest import ROOT, mutations
from quotefinder.commands.importing import main
from quotefinder.core.errors import QuestionFileError
from quotefinder.questions import Outcome, load_questions
from quotefinder.questions.importer import accept_pattern, read_source, sample

SQUAD = ROOT / "data" / "squad2-dev-sample.json"


def test_the_shared_squad_sample_imports_with_every_gold_answer_matching(tmp_path: Path) -> None:
    out = tmp_path / "squad.yaml"
    assert main([str(SQUAD), "--out", str(out)]) == 0
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
    assert main([str(table), "--out", str(out)]) == 0
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
    assert main([str(SQUAD), "--out", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err and out.read_text() == "mine"
    assert main([str(SQUAD), "--out", str(out), "--force", "--sample", "20"]) == 0
    assert len(load_questions(out).questions) == 20 and "20 questions (sampled from 429)" in capsys.readouterr().out
    assert main([str(SQUAD), "--out", str(tmp_path / "q.txt")]) == 2
    assert main([str(tmp_path / "missing.json"), "--out", str(tmp_path / "x.yaml")]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "latin1.csv").write_bytes("question\nCafé?\n".encode("latin-1"))
    assert main([str(tmp_path / "latin1.csv"), "--out", str(tmp_path / "y.yaml")]) == 2
    assert "line 2: not UTF-8" in capsys.readouterr().err
    assert main([str(SQUAD), "--out", str(tmp_path / "z.yaml"), "--sample", "0"]) == 2


def test_a_sample_larger_than_the_source_is_refused_naming_the_source_and_both_sizes(tmp_path: Path,
                                                                                      capsys) -> None:
    """--sample N asks for N questions drawn at random: with fewer in the source the user cannot get that
    sample, so nothing is written and the message says how many there are (after merging) and what to give."""
    out = tmp_path / "q.yaml"
    assert main([str(SQUAD), "--out", str(out), "--sample", "1000"]) == 2
    assert (f"import: {SQUAD}: --sample 1000 asks for more questions than the source holds: 429 (430 read, 1 "
            "merged into one of the same text). Give --sample 429 or fewer, or leave --sample out to import every "
            "question") in capsys.readouterr().err
    assert not out.exists()
    assert main([str(SQUAD), "--out", str(out), "--sample", "429"]) == 0  # exactly all of them: fine
    assert len(load_questions(out).questions) == 429


# ---- validated first, written last ------------------------------------------------------------------------

GOOD = '{"question": "How tall is the tower?", "id": "tower", "answers": ["330 m"]}\n'
SQUAD_WITH = ('{{"data": [{{"paragraphs": [{{"context": "c", "qas": [{{"id": "a", "question": "Q?", "answers": []}}, '
              '{}]}}]}}]}}')
REFUSED_BY_THE_LOADER = {  # sources the importer used to write as question files the loader then refused
    "an empty SQuAD question": ("q.json", SQUAD_WITH.format('{"id": "b", "question": "   ", "answers": []}'),
                                r"record data\[0\]\.paragraphs\[0\]\.qas\[1\]: has no `question` text"),
    "a whitespace-only id (JSON Lines)": ("q.jsonl", '{"question": "A?", "id": "  "}\n', "line 1: `id` is blank"),
    "a whitespace-only id (SQuAD)": ("q.json", SQUAD_WITH.format('{"id": " ", "question": "B?", "answers": []}'),
                                     r"qas\[1\]: `id` is blank"),
    "ids differing by a trailing space (JSON Lines)": (
        "q.jsonl", '{"question": "A?", "id": "a"}\n{"question": "B?", "id": "a "}\n',
        r"line 2: id 'a' was already used \(line 1\)"),
    "ids differing by a trailing space (SQuAD)": (
        "q.json", SQUAD_WITH.format('{"id": "a ", "question": "B?", "answers": []}'),
        r"qas\[1\]: id 'a' was already used \(record data\[0\]\.paragraphs\[0\]\.qas\[0\]\)"),
}


@pytest.mark.parametrize("case", sorted(REFUSED_BY_THE_LOADER))
def test_a_source_the_loader_would_refuse_writes_nothing_and_never_replaces_a_good_file(
        tmp_path: Path, capsys, case: str) -> None:
    name, text, message = REFUSED_BY_THE_LOADER[case]
    source = write(tmp_path / name, text)
    out = tmp_path / "questions" / "q.yaml"
    assert main([str(source), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert re.search(message, err) and f"{source}, " in err, err
    assert not out.exists() and not out.parent.exists()
    good = tmp_path / "good.yaml"
    assert main([str(write(tmp_path / "good.jsonl", GOOD)), "--out", str(good)]) == 0
    before = good.read_bytes()
    assert main([str(source), "--out", str(good), "--force"]) == 2
    assert good.read_bytes() == before and load_questions(good).questions[0].id == "tower"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary left behind


def test_ids_are_written_without_the_spaces_around_them(tmp_path: Path) -> None:
    out = tmp_path / "q.yaml"
    assert main([str(write(tmp_path / "q.jsonl", '{"question": "A?", "id": " a\\t"}\n')),
                 "--out", str(out)]) == 0
    assert "id: a\n" in out.read_text() and load_questions(out).questions[0].id == "a"


def test_the_loaders_own_checks_name_the_source_record_of_the_question_they_refuse(tmp_path: Path) -> None:
    """What the importer's own checks miss, the loader (run on the text about to be written) still refuses,
    naming the source's record instead of a line of a file that was never written."""
    from quotefinder.questions import parse_questions

    text = "questions:\n  - {id: a, question: A?}\n  - id: ' '\n    question: B?\n  - {id: c, question: A?}\n"
    with pytest.raises(QuestionFileError, match=r"^src\.jsonl, line 7: question 2 \('B\?'\) has an empty `id`"):
        parse_questions(text, Path("src.jsonl"), origins=["line 3", "line 7", "line 9"])
    with pytest.raises(QuestionFileError, match=r"^src\.jsonl, line 9: duplicate question 'A\?', first used on "
                                                "line 3"):
        parse_questions(text.replace("' '", "b"), Path("src.jsonl"), origins=["line 3", "line 7", "line 9"])


# ---- inputs that break a parser ---------------------------------------------------------------------------

DEEP = "[" * 200_000


@pytest.mark.parametrize(("name", "text"), [
    pytest.param("deep.json", DEEP, id="brackets"),
    pytest.param("deep.json", '{"data": [{"paragraphs": [{"qas": [{"question": "Q?", "answers": ' + DEEP + "}]}]}]}",
                 id="deep answers"),
    pytest.param("deep.jsonl", '{"question": "A?"}\n' + DEEP + "\n", id="a deep line"),
    pytest.param("deep.jsonl", '{"question": "A?", "answers": ' + "[" * 5000 + "]" * 5000 + "}\n", id="closed"),
    pytest.param("big.json", '{"data": [{"paragraphs": [{"qas": [{"question": "Q?", "id": ' + "1" * 5000 +
                 "}]}]}]}", id="5000 digits"),
])
def test_a_source_nested_too_deeply_or_with_an_absurd_number_is_refused_clearly(tmp_path: Path, capsys, name,
                                                                                text) -> None:
    source = write(tmp_path / name, text)
    out = tmp_path / "q.yaml"
    assert main([str(source), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{source}" in err and ("nested too deeply" in err or "4300 digits" in err), err
    assert name.endswith(".json") or f"{source}, line 2: " in err or f"{source}, line 1: " in err
    assert not out.exists()


def test_a_lone_surrogate_in_an_id_is_refused(tmp_path: Path, capsys) -> None:
    source = write(tmp_path / "q.jsonl", '{"question": "A?", "id": "a\\ud800"}\n')
    assert main([str(source), "--out", str(tmp_path / "q.yaml")]) == 2
    assert "line 1: holds text that is not valid Unicode" in capsys.readouterr().err


def test_json_lines_are_split_at_newlines_only(tmp_path: Path) -> None:
    """A JSON string may hold U+2028 or U+0085 unescaped; they end no JSON Lines line."""
    source = write(tmp_path / "q.jsonl", '{"question": "A\u2028B\x85C?"}\n{"question": "D?"}\nnot json\n')
    with pytest.raises(QuestionFileError, match=r", line 3: not a JSON object"):
        read_source(source)


# Property-based: random and mutated versions of valid sources, through the command a user runs. Never an
# exception but the project's own errors (the command maps those to exit 2), never a file from a refused
# source, never a replaced file. QUOTEFINDER_FUZZ_EXAMPLES=5000 runs longer.
FUZZ = settings(max_examples=int(os.environ.get("QUOTEFINDER_FUZZ_EXAMPLES", "150")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SOURCES = {
    ".json": json.dumps({"version": "v2.0", "data": [{"title": "T", "paragraphs": [{"context": "The tower is 330 m.",
             "qas": [{"id": "t1", "question": "How tall is the tower?", "is_impossible": False,
                      "answers": [{"text": "330 m", "answer_start": 13}]},
                     {"id": "t2", "question": "Who painted it?", "is_impossible": True, "answers": []}]}]}]}),
    ".jsonl": '{"question": "How tall is the tower?", "id": "tower", "answers": ["330 m", "1,083 ft"]}\n'
              '{"question": "Who painted it?", "expect": "no-answer"}\n{"question": "Why?", "id": 7}\n',
    ".csv": 'question,id,expect,answers\nHow tall is the tower?,tower,,330 m | "1,083 ft"\n'
            'Who painted it?,,no-answer,\n"Why, then?",7,,a \\| b\n',
}
PIECES = st.one_of(st.text(max_size=6), st.sampled_from([
    '"', "'", ",", ":", "{", "}", "[", "]", "\n", "\r", "\t", "|", "\\", "\\|", '\\"', "\\u", "\\ud800", "\x00",
    "\u2028", "\x85", "\ufeff", " ", "null", "true", "1" * 5000, "-", '"id": ', '"id": " "', '"id": "tower "',
    '"question": ""', '"question": "   "', '"answers": ', '"expect": ', '"answer"', '"no-answer"',
    '"is_impossible": ', "[" * 3000, "[" * 200_000, "question", "id", "expect", "answers", "How tall is the tower?",
]))


def mutated(text: str) -> st.SearchStrategy[str]:
    """`text` with a few pieces inserted, deleted or replaced at random places."""
    return mutations(text, PIECES)


TEXT = st.text(st.characters(codec="utf-8"), max_size=12) | st.sampled_from(["", " ", " a ", "a|b", "\\", "Q?"])
RECORDS = st.lists(st.fixed_dictionaries({"question": TEXT}, optional={
    "id": TEXT | st.integers(-5, 5), "expect": st.sampled_from(["answer", "no-answer", ""]),
    "answers": st.lists(TEXT, max_size=3)}), min_size=1, max_size=5)


def written(kind: str, records: list[dict]) -> str:
    """Records as a well-formed source of that kind, whatever their text."""
    if kind == ".jsonl":
        return "".join(json.dumps(record) + "\n" for record in records)
    if kind == ".csv":
        table = io.StringIO()
        writer = csv.writer(table)
        writer.writerow(["question", "id", "expect", "answers"])
        for r in records:
            writer.writerow([r["question"], r.get("id", ""), r.get("expect", ""),
                             "|".join(a.replace("|", "\\|") for a in r.get("answers", []))])
        return table.getvalue()
    qas = [{"question": r["question"], **({"id": r["id"]} if "id" in r else {}),
            "is_impossible": r.get("expect") == "no-answer", "answers": [{"text": a} for a in r.get("answers", [])]}
           for r in records]
    return json.dumps({"data": [{"paragraphs": [{"context": "c", "qas": qas}]}]})


KIND = st.sampled_from(sorted(SOURCES))


@FUZZ
@given(st.one_of(KIND.flatmap(lambda kind: st.tuples(st.just(kind), mutated(SOURCES[kind]))),
                 KIND.flatmap(lambda kind: st.tuples(st.just(kind), st.lists(PIECES, max_size=20).map("".join))),
                 KIND.flatmap(lambda kind: st.tuples(st.just(kind), RECORDS.map(lambda r: written(kind, r))))))
def test_a_mutated_source_imports_or_is_refused_leaving_every_file_as_it_was(tmp_path_factory, case) -> None:
    kind, text = case
    folder = tmp_path_factory.mktemp("fuzz")
    source = folder / f"src{kind}"
    source.write_bytes(text.encode("utf-8", errors="surrogatepass"))
    out, kept = folder / "q.yaml", folder / "kept.yaml"
    kept.write_text("questions:\n  - {id: mine, question: Mine?}\n")
    before = kept.read_bytes()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        status = main([str(source), "--out", str(out)])
        assert main([str(source), "--out", str(kept), "--force"]) == status
    assert status in (0, 2), err.getvalue()
    event(f"{kind} exit {status}")
    if status == 2:
        assert not out.exists() and kept.read_bytes() == before and str(source) in err.getvalue()
    else:
        loaded = load_questions(out).questions
        assert [q.question for q in loaded] == [q.question for q in read_source(source).questions]
        assert load_questions(kept).questions == loaded
    assert sorted(p.name for p in folder.iterdir()) == sorted(["kept.yaml", source.name, *(["q.yaml"] * (status == 0))])
