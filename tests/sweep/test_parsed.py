"""The question file parsed once per content: a repeated sweep reads the questions a sweep kept for the same bytes
instead of parsing the file, with the same report; an edited file is parsed afresh, verdicts are read every time,
and a kept file that is damaged, foreign or of other code is never trusted."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from quotefinder.sweep import parsed
from quotefinder.sweep.index import index_dir
from quotefinder.sweepcmd import main

REPORT_FILES = ("decision.json", "grid.csv", "questions.csv", "summary.md")


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """The question files parsed by the sweeps that keep them (each parse, by path)."""
    seen: list[str] = []
    original = parsed.parse_questions

    def counting(text, path, *rest):
        seen.append(str(path))
        return original(text, path, *rest)

    monkeypatch.setattr(parsed, "parse_questions", counting)
    return seen


def sweep(run: Path, out: Path, *options: str) -> int:
    return main([str(run), "--out", str(out), "--jobs", "1", "--no-plots", *options])


def same_reports(first: Path, second: Path) -> bool:
    return all((first / name).read_bytes() == (second / name).read_bytes() for name in REPORT_FILES)


def kept_file(run: Path) -> Path:
    [found] = index_dir(run).glob(f"*{parsed.SUFFIX}")
    return found


def test_a_repeated_sweep_reads_the_questions_kept_and_parses_nothing(ten: Path, tmp_path: Path, parses) -> None:
    assert sweep(ten, tmp_path / "plain", "--no-index") == 0
    assert not index_dir(ten).exists()  # --no-index keeps nothing either
    assert sweep(ten, tmp_path / "first") == 0
    assert sweep(ten, tmp_path / "again") == 0
    assert len(parses) == 1  # the first sweep parsed the file; the second read what it kept
    assert oct(kept_file(ten).stat().st_mode & 0o777) == "0o600"
    assert same_reports(tmp_path / "plain", tmp_path / "first") and same_reports(tmp_path / "plain",
                                                                                  tmp_path / "again")


def test_an_edited_question_file_is_parsed_afresh_and_judged_by_its_edit(ten: Path, tmp_path: Path, parses) -> None:
    questions = ten.parent.parent / "questions" / "ten.yaml"
    assert sweep(ten, tmp_path / "first") == 0
    text = questions.read_text(encoding="utf-8")
    assert "\\b206\\b" in text
    questions.write_text(text.replace("\\b206\\b", "\\b207\\b"), encoding="utf-8")  # the quote is now wrong
    assert sweep(ten, tmp_path / "edited") == 0
    assert sweep(ten, tmp_path / "plain", "--no-index") == 0
    assert len(parses) == 2
    assert same_reports(tmp_path / "edited", tmp_path / "plain")
    assert (tmp_path / "edited" / "questions.csv").read_bytes() != (tmp_path / "first" / "questions.csv").read_bytes()


def test_verdicts_beside_the_file_are_read_every_sweep(ten: Path, tmp_path: Path, parses) -> None:
    assert sweep(ten, tmp_path / "first") == 0
    (ten.parent.parent / "questions" / "ten.verdicts.yaml").write_text(
        'verdicts:\n  - question: "How many bones are in the adult human body?"\n'
        '    quote: "A typical adult skeleton is made of 206 bones."\n    verdict: wrong\n', encoding="utf-8")
    assert sweep(ten, tmp_path / "judged") == 0
    assert sweep(ten, tmp_path / "plain", "--no-index") == 0
    assert len(parses) == 1  # the question file itself is unchanged: kept
    assert same_reports(tmp_path / "judged", tmp_path / "plain")
    assert (tmp_path / "judged" / "questions.csv").read_bytes() != (tmp_path / "first" / "questions.csv").read_bytes()


def _resealed(raw: bytes, change) -> bytes:
    data = json.loads(raw.partition(b"\n")[2])
    change(data)
    body = json.dumps(data).encode()
    return hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def _set(data: dict, n: int, field: int, value: object) -> None:
    data["questions"][n][field] = value


DAMAGES = {
    "a bit changed": lambda raw: raw[:-40] + bytes([raw[-40] ^ 1]) + raw[-39:],
    "torn": lambda raw: raw[: len(raw) // 2],
    "garbage": lambda raw: b"not kept questions",
    "a line that is not a number": lambda raw: _resealed(raw, lambda d: _set(d, 0, 4, "4")),
    "a label no file allows": lambda raw: _resealed(raw, lambda d: _set(d, 0, 2, "maybe")),
    "an invalid regex": lambda raw: _resealed(raw, lambda d: _set(d, 0, 3, ["(unclosed"])),
    "a question short of a field": lambda raw: _resealed(raw, lambda d: d["questions"][0].pop()),
    "kept by other code": lambda raw: _resealed(raw, lambda d: d.update(code="0" * 64)),
    "of other bytes": lambda raw: _resealed(raw, lambda d: d.update(sha256="0" * 64)),
    "of another format": lambda raw: _resealed(raw, lambda d: d.update(format="quotefinder-parsed-questions/0")),
    "no questions at all": lambda raw: _resealed(raw, lambda d: d.pop("questions")),
    "two questions of one id": lambda raw: _resealed(raw, lambda d: _set(d, 1, 0, d["questions"][0][0])),
    "patterns on a question that expects no answer": lambda raw: _resealed(
        raw, lambda d: _set(d, next(n for n, q in enumerate(d["questions"]) if q[2] == "no-answer"), 3, ["x"])),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_kept_questions_damaged_or_foreign_are_never_trusted(ten: Path, tmp_path: Path, parses, damage: str) -> None:
    assert sweep(ten, tmp_path / "first") == 0
    kept = kept_file(ten)
    raw = kept.read_bytes()
    kept.write_bytes(DAMAGES[damage](raw))
    assert sweep(ten, tmp_path / "after") == 0
    assert len(parses) == 2  # parsed afresh
    assert same_reports(tmp_path / "first", tmp_path / "after")
    assert kept.read_bytes() == raw  # and kept again, whole
    assert sweep(ten, tmp_path / "again") == 0 and len(parses) == 2


def test_a_question_file_with_an_error_is_never_kept(ten: Path, tmp_path: Path, capsys) -> None:
    questions = ten.parent.parent / "questions" / "ten.yaml"
    questions.write_text(questions.read_text().replace("expect: no-answer", "expect: maybe", 1))
    assert sweep(ten, tmp_path / "r") == 2
    assert "maybe" in capsys.readouterr().err
    assert not list(index_dir(ten).glob(f"*{parsed.SUFFIX}"))


def _everything_correct(data: dict) -> None:
    for question in data["questions"]:
        question[2], question[3] = "answer", [".*"]  # any quote counts as correct


@pytest.mark.parametrize("how", ["writable by others", "someone else's"])
@pytest.mark.parametrize("depth", [0, 1, 2, 3], ids=["cache", "runs", "run", "replay-index"])
def test_a_cache_others_can_write_is_not_used(ten: Path, tmp_path: Path, monkeypatch, capsys, how: str,
                                             depth: int) -> None:
    """A cache folder someone else owns, or that others can write to (a shared QUOTEFINDER_CACHE_DIR), holding a
    kept parse with the labels rewritten under a fresh checksum line: it is not used (one line says so, naming the
    folder) and the gate fails as a sweep with an empty cache fails; as ssh treats a key file."""
    if how == "someone else's" and os.geteuid() != 0:
        pytest.skip("giving a folder to another user takes root")
    monkeypatch.setenv("QUOTEFINDER_CACHE_DIR", str(tmp_path / "cache"))  # this test's own, to spoil
    gate = ("--at", "0.3,0.6", "--max-wrong", "0")
    assert sweep(ten, tmp_path / "honest", *gate) == 1
    capsys.readouterr()
    kept = kept_file(ten)
    kept.write_bytes(_resealed(kept.read_bytes(), _everything_correct))
    assert sweep(ten, tmp_path / "forged-private", *gate) == 0  # what the forgery does where it is trusted
    folder = [kept.parent.parent.parent.parent, kept.parent.parent.parent, kept.parent.parent, kept.parent][depth]
    if how == "writable by others":
        folder.chmod(0o777)
    else:
        os.chown(folder, 4242, 4242)
    capsys.readouterr()
    assert sweep(ten, tmp_path / "forged", *gate) == 1
    err = capsys.readouterr().err
    assert same_reports(tmp_path / "honest", tmp_path / "forged")
    assert err.count("\n") == 1 and f"not using the cache folder {folder} for derived files" in err
    assert ("others can write to it (mode 0777)" if how == "writable by others" else
            "owned by another user (uid 4242)") in err
