"""What eval.py prints in the terminal: the progress of a recording, each question's decision at the
default cutoffs and the Outcome | Count table, and what to do next. Page text passes through
`textsafe.terminal`, so a title cannot move the cursor or recolour the screen. (The sweep's terminal
output is `report.console`; this module keeps the recording command free of the sweep's imports.)
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from typing import TextIO

from tqdm import tqdm

from ..questions import OUTCOMES, Outcome
from ..recipe.decision import Cutoffs
from ..record.recorder import QuestionRun
from ..record.rundir import RunRecord
from ..record.session import Recording
from ..textsafe import terminal

NOT_RUN = "not run"  # a question (repeat) that has no decision: its requests failed or are missing


def notice(text: str) -> None:
    """Something the user should know before the output proper: to stderr."""
    print(text, file=sys.stderr)


class RecordingBar:
    """The progress bar of a recording: questions done, requests sent per second, from the cache,
    retries and errors. Shown only on a terminal, and only once a question is done, so that nothing is
    drawn when the recording stops before it starts (a locked run, a bad base URL)."""

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
        self.bar.set_postfix_str(f"sent {t.sent} ({per_second:.1f} req/s), from cache {t.from_cache}, "
                                 f"retries {t.retries}, errors {t.failed}")

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
    if not recording.finished:
        notice("\nInterrupted: every response received so far is saved; rerun to resume.")
    elif not record.complete:
        notice(f"\n{len(record.errors)} question(s) could not be completed; rerun to retry them "
               "(saved responses are reused).")


def _outcome(item: QuestionRun) -> str:
    if item.summary is None:
        return NOT_RUN
    return item.question.judge(item.summary.decision.sentence).label


def show_decisions(items: list[QuestionRun], cutoffs: Cutoffs, evidence: str | None,
                   out: TextIO | None = None) -> list[Counter[str]]:
    """Print each question's decision at `cutoffs` (the first repeat's in full, the others' outcomes on
    one line), then the Outcome | Count table; return each repeat's counts by outcome label."""
    out = out or sys.stdout
    if evidence == "synthetic":
        print("SYNTHETIC evidence: recorded against the stand-in API, not the real one.\n", file=out)
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
        _show_one(group[0], out)
        if repeats > 1:
            print(f"  repeats: {', '.join(outcomes)}", file=out)
        print(f"  -> {outcomes[0]}\n", file=out)
    label = " (synthetic)" if evidence == "synthetic" else ""
    print(f"At HAS_ANSWER_CUTOFF {cutoffs.has_answer:g}, ANSWER_CUTOFF {cutoffs.answer:g}{label}"
          f"{f', over {repeats} repeats' if repeats > 1 else ''}:\n", file=out)
    print("Outcome    | Count\n-----------|------", file=out)
    for outcome in [*(o.label for o in OUTCOMES), NOT_RUN]:
        values = [c[outcome] for c in counts]
        if outcome in (Outcome.UNJUDGED.label, NOT_RUN) and not any(values):
            continue
        low, high, mean = min(values), max(values), sum(values) / len(values)
        shown = f"{low:>5}" if low == high else f"{mean:>5.4g} ({low}-{high})"
        print(f"{outcome:<10} | {shown}", file=out)
    return counts


def _show_one(item: QuestionRun, out: TextIO) -> None:
    """The quote (or the no-answer line and the closest candidate) with its source, or why none."""
    if item.summary is None:
        print(f"  not run: {terminal(item.error or 'missing ' + str(item.missing))}", file=out)
        return
    decision = item.summary.decision
    shown = decision.quote or decision.closest
    if decision.quote is not None:
        print(f"  Answer (answers {decision.quote.answers:.3f}):", file=out)
    else:
        print(f"  No sentence in the top {item.summary.result_count} results answers this question.", file=out)
        if shown is not None:
            basis = "answers" if shown.answers is not None else "has_answer"
            value = shown.answers if shown.answers is not None else shown.candidate.has_answer
            print(f"  Closest ({basis} {value:.3f}, below cutoff):", file=out)
    if shown is not None:
        c = shown.candidate
        print(f'  "{terminal(c.sentence)}"\n  {terminal(c.source)}', file=out)
