"""What a sweep trusts: the question file (and its verdicts) for judging, parsed every sweep, and the responses
themselves for the evidence. run.json's copies of either are never taken on trust: a hand-edited run.json can
neither pass a gate the question file fails nor turn a synthetic run into a live one."""

from __future__ import annotations

import json
from pathlib import Path

from quotefinder.record.cache import decode_entry, encode_entry
from quotefinder.sweep import replay
from quotefinder.sweepcmd import main

GATE = ["--no-plots", "--at", "0.3,0.6", "--max-wrong", "0"]


def _edit_run_json(run: Path, edit) -> None:
    path = run / "run.json"
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data, indent=2))


def test_the_gate_judges_from_the_question_file_whatever_run_json_says(ten: Path, tmp_path: Path, capsys) -> None:
    """At (0.3, 0.6) the demo quotes something for treaty-of-rome-ink, a no-answer question: one wrong quote, so
    `--max-wrong 0` fails. Relabelling that question in run.json's copy (an answer, any sentence accepted) would
    pass the gate; the question file is unchanged, so the sweep must still fail it."""
    assert main([str(ten), "--out", str(tmp_path / "before"), *GATE]) == 1

    def relabel(data: dict) -> None:
        [treaty] = [q for q in data["questions"] if q["id"] == "treaty-of-rome-ink"]
        treaty.update(expect="answer", accept=["."])

    _edit_run_json(ten, relabel)
    capsys.readouterr()
    assert main([str(ten), "--out", str(tmp_path / "after"), *GATE]) == 1
    assert "FAIL at (0.3, 0.6) (the worst of the repeats): wrong 1 <= 0 BROKEN" in capsys.readouterr().out
    summary = (tmp_path / "after" / "summary.md").read_text()
    assert "wrong 1 <= 0 BROKEN" in summary
    assert (tmp_path / "after" / "grid.csv").read_bytes() == (tmp_path / "before" / "grid.csv").read_bytes()


def test_a_run_json_that_claims_live_evidence_for_synthetic_responses_is_refused(ten: Path, tmp_path: Path,
                                                                               capsys) -> None:
    _edit_run_json(ten, lambda data: data.update(evidence="live"))
    assert main([str(ten), "--out", str(tmp_path / "r"), "--no-plots"]) == 2
    err = capsys.readouterr().err
    assert f"{ten}: run.json says its evidence is live, but the responses it holds are synthetic" in err
    assert f"{ten}/responses/" in err  # an entry named, as proof
    assert not (tmp_path / "r").exists()


def test_one_entry_marked_live_in_a_synthetic_run_is_refused_by_name(ten: Path, tmp_path: Path, capsys,
                                                                     monkeypatch) -> None:
    """An entry whose evidence marker was changed and whose checksum line was recomputed is not torn: it reads
    as valid. The sweep still refuses the run, naming the entry, because its entries disagree."""
    entry = next(p for p in sorted((ten / "responses").rglob("*.json")) if '"/search"' in p.read_text())
    data = decode_entry(entry.read_bytes(), entry)
    assert data["evidence"] == "synthetic"
    data["evidence"] = "live"
    entry.write_bytes(encode_entry(data))
    assert decode_entry(entry.read_bytes(), entry)["evidence"] == "live"  # a valid entry, not a torn one
    for jobs in ("1", "2"):  # replayed here, then in worker processes
        monkeypatch.setattr(replay, "PARALLEL_FROM", 1 if jobs == "2" else replay.PARALLEL_FROM)
        assert main([str(ten), "--out", str(tmp_path / "r"), "--no-plots", "--jobs", jobs]) == 2
        err = capsys.readouterr().err
        assert f"{ten}: its responses disagree about what they are evidence of: {entry} is live" in err
        assert not (tmp_path / "r").exists()
