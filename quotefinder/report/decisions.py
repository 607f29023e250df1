"""What eval.py prints in the terminal: the progress of a recording, each question's decision at the
default cutoffs and the Outcome | Count table, and what to do next. Page text passes through
`textsafe.terminal`, so a title cannot move the cursor or recolour the screen. (The sweep's terminal
output is `report.console`; this module keeps the recording command free of the sweep's imports.)
"""

from __future__ import annotations

import io
import sys
import time
from collections import Counter
from pathlib import Path
from typing import TextIO

from tqdm import tqdm

from ..core.errors import StorageError
from ..core.storage import read_file, write_private
from ..core.textsafe import terminal
from ..questions import OUTCOMES, UNKNOWN
from ..record.recorder import QuestionRun
from ..record.refresh import RefreshPlan
from ..record.rundir import RunRecord
from ..record.session import Recording
from .numbers import titled_point_words

NOT_RUN = "not run"  # a question (repeat) that has no decision: its requests failed or are missing


def refreshing_words(plan: RefreshPlan) -> str:
    """What a refresh records, before it records: the sample, how it was drawn, and where it goes."""
    refresh = plan.refresh
    labels = {"answer": "answer", "no-answer": "no-answer", "": "unlabelled"}
    strata = ", ".join(f"{labels[label]} {taken} of {held}" for label, taken, held in refresh.strata)
    return (f"Refreshing {plan.original_dir}: {refresh.sample} of its {sum(h for _, _, h in refresh.strata)} "
            f"question(s) ({strata}; seed {refresh.seed}) into {plan.run_dir}, with its pipeline and "
            f"{plan.original.repeats} repeat(s); nothing is served from its cache. Then: python sweep.py "
            f"{plan.run_dir} --drift")


def notice(text: str) -> None:
    """Something the user should know before the output proper: to stderr."""
    print(text, file=sys.stderr)


class RecordingBar:
    """The progress bar of a recording: questions done, requests sent per second and the input tokens they
    used, responses from the cache, retries and errors. Shown only on a terminal, and only once a question
    is done, so that nothing is drawn when the recording stops before it starts (a locked run, a bad URL)."""

    def __init__(self, recording: Recording) -> None:
        self.tally = recording.recorder.tally
        self.total = len(recording.pending)
        self.bar: tqdm | None = None
        self.began = time.monotonic()

    def done(self, item: QuestionRun) -> None:
        if self.bar is None:
            self.bar = tqdm(total=self.total, unit="question", file=sys.stderr, disable=None)
        t = self.tally
        per_second = t.sent / max(time.monotonic() - self.began, 1e-9)
        self.bar.update(1)
        self.bar.set_postfix_str(f"sent {t.sent} ({per_second:.1f} req/s, {t.tokens:,} input tokens), "
                                 f"from cache {t.from_cache}, retries {t.retries}, errors {t.failed}")

    def __enter__(self) -> RecordingBar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()


def show_recording_end(recording: Recording, record: RunRecord) -> None:
    """What the user must know after the decisions: entries replaced, an interruption, failed questions."""
    replaced = recording.recorder.tally.replaced
    if replaced:
        notice(f"{replaced} saved response(s) failed their checksum (torn or edited) and were requested again.")
    if recording.recorder.budget_spent:
        notice(f"\nStopped at --max-requests {recording.options.max_requests}: every response received is saved; "
               "rerun (with a new --max-requests, or without) to go on without paying twice.")
    elif not recording.finished:
        notice("\nInterrupted: every response received so far is saved; rerun to resume.")
    elif not record.complete:
        notice(f"\n{len(record.errors)} question(s) could not be completed; rerun to retry them "
               "(saved responses are reused).")


def _outcome(item: QuestionRun) -> str:
    if item.summary is None:
        return NOT_RUN
    return item.question.judge_quote(item.summary.decision.quoted).label


SCREENFUL = 20  # questions whose decisions fit a terminal; past this they go to a file in the run
DECISIONS_FILE = "decisions.txt"


def show_decisions(items: list[QuestionRun], at: str, evidence: str | None,
                   out: TextIO | None = None, sentences: str = "") -> list[Counter[str]]:
    """Print each question's decision at the point `at` says (the first repeat's in full, the others' outcomes on
    one line), then the Outcome | Count table; return each repeat's counts by outcome label. `sentences`: what
    another system's no-answer line says (`System.no_answer_words`; '' for one that says it itself)."""
    out = out or sys.stdout
    if evidence == "synthetic":
        print("SYNTHETIC evidence: recorded against the stand-in API, not the real one.\n", file=out)
    counts = _blocks(items, out, sentences)
    _table(counts, at, evidence, out)
    return counts


def report_decisions(recording: Recording, verbose: bool = False, out: TextIO | None = None) -> Path | None:
    """The decisions at the default cutoffs as a person can read them: every question's block when they fit
    a screen (or with `verbose`); past that, the blocks go to `decisions.txt` in the run (rewritten only when
    they change) and the terminal keeps the questions that could not be run and the Outcome | Count table.
    Returns the file written to, if any."""
    out = out or sys.stdout
    items, evidence = recording.items, recording.recorder.evidence
    questions = len({item.question.question for item in items})
    at = titled_point_words(recording.system.axes, recording.recorder.default)
    sentences = recording.system.no_answer_words
    if verbose or questions <= SCREENFUL:
        show_decisions(items, at, evidence, out, sentences)
        return None
    text = io.StringIO()
    show_decisions(items, at, evidence, text, sentences)
    path = recording.run_dir / DECISIONS_FILE
    data = text.getvalue().encode()
    try:
        same = read_file(path, len(data)) == data
    except OSError:  # none yet, or anything but a file of ours (a link is replaced, never written through)
        same = False
    if not same:
        try:
            write_private(path, data)
        except OSError as error:
            raise StorageError(f"{path}: cannot be written ({error.strerror or error})") from None
    if evidence == "synthetic":
        print("SYNTHETIC evidence: recorded against the stand-in API, not the real one.\n", file=out)
    not_run = [item for item in items if item.summary is None]
    for item in not_run[:SCREENFUL]:
        print(f"not run: {terminal(item.question.id)}{f' (repeat {item.repeat})' if item.repeat else ''}: "
              f"{terminal(item.error or 'missing ' + str(item.missing))}", file=out)
    if len(not_run) > SCREENFUL:
        print(f"... and {len(not_run) - SCREENFUL} more not run", file=out)
    print(f"Each of the {questions} questions' decision: {path} (--verbose prints them here).\n", file=out)
    counts = _blocks(items, io.StringIO(), sentences)
    _table(counts, at, evidence, out)
    return path


def _blocks(items: list[QuestionRun], out: TextIO, sentences: str = "") -> list[Counter[str]]:
    """Each question's block (decision and source; its other repeats' outcomes); each repeat's counts."""
    by_question: dict[str, list[QuestionRun]] = {}
    for item in items:
        by_question.setdefault(item.question.question, []).append(item)
    repeats = max(item.repeat for item in items) + 1 if items else 1
    counts: list[Counter[str]] = [Counter() for _ in range(repeats)]
    for n, group in enumerate(by_question.values(), start=1):
        group.sort(key=lambda item: item.repeat)
        q = group[0].question
        print(f"[{n}/{len(by_question)}] {terminal(q.id)}: {terminal(q.question)}", file=out)
        outcomes = []
        for item in group:
            outcome = _outcome(item)
            counts[item.repeat][outcome] += 1
            outcomes.append(outcome)
        _show_one(group[0], out, sentences)
        if repeats > 1:
            print(f"  repeats: {', '.join(outcomes)}", file=out)
        print(f"  -> {outcomes[0]}\n", file=out)
    return counts


def _table(counts: list[Counter[str]], at: str, evidence: str | None, out: TextIO) -> None:
    repeats = len(counts)
    label = " (synthetic)" if evidence == "synthetic" else ""
    print(f"At {at}{label}"
          f"{f', over {repeats} repeats' if repeats > 1 else ''}:\n", file=out)
    print("Outcome    | Count\n-----------|------", file=out)
    for outcome in [*(o.label for o in OUTCOMES), NOT_RUN]:
        values = [c[outcome] for c in counts]
        if outcome in (*(o.label for o in UNKNOWN), NOT_RUN) and not any(values):
            continue
        low, high, mean = min(values), max(values), sum(values) / len(values)
        shown = f"{low:>5}" if low == high else f"{mean:>5.4g} ({low}-{high})"
        print(f"{outcome:<10} | {shown}", file=out)


def show_estimate(recording: Recording, rate: float, per_1k_requests: float | None = None,
                  per_million_tokens: float | None = None, out: TextIO | None = None) -> None:
    """What recording the missing part would send, and cost: nothing is sent to find out."""
    out = out or sys.stdout
    estimate = recording.estimate()
    print(f"Recording {recording.questions.path} into {recording.run_dir} would send (--estimate: nothing was "
          "sent):", file=out)
    worst = f"; {recording.system.worst_words(recording.pipeline)}"
    print(f"  at most {estimate.at_most:,} requests ({estimate.pending} question repeat(s) not fully recorded{worst})",
          file=out)
    if not estimate.pending:
        return
    print(f"  expected about {estimate.expected:,.0f} requests and {estimate.tokens:,.0f} input tokens "
          f"(from {estimate.basis})", file=out)
    if rate > 0:
        print(f"  time at --rate {rate:g}: about {_duration(estimate.expected / rate)}, at most "
              f"{_duration(estimate.at_most / rate)}", file=out)
    else:
        print("  time: no --rate limit, as fast as the API answers", file=out)
    if per_1k_requests is not None:
        print(f"  requests at {per_1k_requests:g} per 1,000: about {estimate.expected / 1000 * per_1k_requests:,.2f}, "
              f"at most {estimate.at_most / 1000 * per_1k_requests:,.2f}", file=out)
    if per_million_tokens is not None:
        print(f"  input tokens at {per_million_tokens:g} per million: about "
              f"{estimate.tokens / 1e6 * per_million_tokens:,.2f}", file=out)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _show_one(item: QuestionRun, out: TextIO, sentences: str = "") -> None:
    """The quote (or the no-answer line and the closest candidate) with its source, or why none."""
    if item.summary is None:
        print(f"  not run: {terminal(item.error or 'missing ' + str(item.missing))}", file=out)
        return
    piece = item.summary.decision
    shown = piece.display
    if piece.quoted is not None:
        score = piece.quoted.score
        print(f"  Answer ({piece.quoted.score_name} {score:.3f}):" if score is not None else "  Answer:", file=out)
    elif sentences:
        print(f"  No answer: {sentences}.", file=out)
    else:
        print(f"  No sentence in the top {item.summary.result_count} results answers this question.", file=out)
        if shown is not None and shown.score is not None:
            print(f"  Closest ({shown.score_name} {shown.score:.3f}, below cutoff):", file=out)
    if shown is not None and shown.passages:  # an answer of several verbatim passages: one line each
        for n, text in enumerate(shown.passages, start=1):
            print(f'  {n}. "{terminal(text)}"', file=out)
        print(f"  first passage: {terminal(shown.source)}", file=out)
    elif shown is not None:
        print(f'  "{terminal(shown.text)}"\n  {terminal(shown.source)}', file=out)
    if shown is not None and shown.broken:
        print(f"  wrong whatever it says: {terminal(shown.broken)}", file=out)
