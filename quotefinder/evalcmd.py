"""`python eval.py QUESTIONS.yaml`: record the pipeline's responses for a question set, then show its
decisions at the default cutoffs. Everything already saved is served from the run's cache; only what
is missing is sent, so an interrupted or extended run resumes without paying twice.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import threading
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tqdm import tqdm

from . import contract
from .cache import ResponseCache
from .client import DEFAULT_BASE_URL, ApiClient, RateLimiter, RetryPolicy, check_base_url
from .decision import Cutoffs
from .errors import InputError, QuoteFinderError, StorageError
from .pipeline import Coverage
from .questions import OUTCOMES, QuestionSet, load_questions
from .record import QuestionRun, Recorder
from .replay import repeats_of
from .rundir import locked, read_run, remove_temporaries, write_run
from .textsafe import terminal

EXIT_OK, EXIT_INCOMPLETE = 0, 2
SHOW_MISSING = 20


def parse_range(text: str) -> tuple[float, float]:
    """'LO:HI' with 0 <= LO <= HI <= 1."""
    try:
        lo, hi = (float(part) for part in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not LO:HI, e.g. 0:1 or 0.2:0.5") from None
    if not 0.0 <= lo <= hi <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r}: need 0 <= LO <= HI <= 1")
    return lo, hi


def bounded(kind: type, minimum: float, what: str):
    """An argparse type: a `kind` (int or float) that is at least `minimum` and not NaN."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not value >= minimum:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        return value

    return parse


positive_int = bounded(int, 1, "a whole number >= 1")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="eval.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "environment:\n"
            "  PERPLEXITY_API_KEY    needed only when something must be fetched; never written anywhere\n"
            f"  PERPLEXITY_BASE_URL   default {DEFAULT_BASE_URL}; point it at a proxy or the stand-in\n\n"
            "exit status: 0 the run is complete; 2 something kept it from completing (rerun to resume)\n\n"
            "examples:\n"
            "  python eval.py questions/ten.yaml               # replays runs/ten/ from its cache\n"
            "  python eval.py questions/mine.yaml --run runs/mine-live\n"
            "  python eval.py questions/ten.yaml --offline     # never connects; lists what is missing"
        ),
    )
    parser.add_argument("questions", type=Path, help="a questions YAML file (see questions/ten.yaml)")
    parser.add_argument("--run", type=Path, help="run directory (default: runs/<questions file stem>)")
    parser.add_argument("--offline", action="store_true", help="never connect; exit 2 listing any response missing")
    parser.add_argument("--concurrency", type=positive_int, default=8, metavar="N",
                        help="questions in flight at once (default 8)")
    parser.add_argument("--rate", type=bounded(float, 0, "a rate >= 0 (0 means no limit)"), default=10.0, metavar="R",
                        help="requests per second across all questions (default 10, the Decisions API limit; 0: none)")
    parser.add_argument("--has-answer-range", type=parse_range, default=(0.0, 1.0), metavar="LO:HI",
                        help="record the compare request of every qualified set a HAS_ANSWER_CUTOFF in LO..HI "
                        "selects, so sweeps over that range replay exact responses (default 0:1)")
    parser.add_argument("--repeats", type=positive_int, metavar="N",
                        help="independent observations of every request (default: as many as the run holds, "
                        "or 1); raising it sends only the new repeats")
    parser.add_argument("--timeout", type=bounded(float, 0.001, "a number of seconds > 0"), default=30.0,
                        metavar="S", help="seconds per request attempt (default 30)")
    parser.add_argument("--retries", type=bounded(int, 0, "a whole number >= 0"), default=4, metavar="N",
                        help="retries of a transient failure (default 4)")
    parser.add_argument("--backoff", type=bounded(float, 0, "a number of seconds >= 0"), default=1.0, metavar="S",
                        help="first wait before a retry, doubling each time up to 30 s, unless the API sends "
                        "Retry-After (default 1)")
    return parser


def question_changes(previous: dict, current: QuestionSet) -> str:
    """What changed between the recorded question set and the current one, in words ('' if nothing)."""
    old = {q["question"]: q for q in previous.get("questions", [])}
    new = current.by_text()
    added = [t for t in new if t not in old]
    removed = [t for t in old if t not in new]
    relabelled = [t for t in new if t in old and old[t].get("expect") != new[t].expect]
    parts = [f"{len(found)} {what} ({', '.join(repr(t[:50]) for t in found[:3])}{', ...' if len(found) > 3 else ''})"
             for what, found in (("added", added), ("removed", removed), ("relabelled", relabelled)) if found]
    return "; ".join(parts)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Recording:
    """One invocation of eval.py on one run directory."""

    questions: QuestionSet
    run_dir: Path
    previous: dict | None
    recorder: Recorder
    items: list[QuestionRun]
    span: tuple[float, float]
    started: str = field(default_factory=_now)
    host: str = ""
    finished: bool = True  # False when Ctrl+C or SIGTERM cut the recording short
    written: dict | None = field(default=None, init=False)  # what run.json holds now

    def __post_init__(self) -> None:
        self.written = self.previous  # `previous` stays run.json as this invocation found it

    def record(self) -> dict:
        """The run.json content for this invocation."""
        tally, cutoffs, items = self.recorder.tally, self.recorder.cutoffs, self.items
        errors = [{"id": i.question.id, "repeat": i.repeat, "error": i.error or f"missing {i.missing}"}
                  for i in items if i.summary is None]
        record = {
            "evidence": self.recorder.evidence,
            "complete": self.finished and not errors,
            "questions_file": {
                "path": os.path.relpath(self.questions.path.resolve(), self.run_dir.resolve()),
                "sha256": self.questions.sha256,
            },
            "questions": [q.as_record() for q in self.questions.questions],
            "config": {
                "base_url_host": self.host or (self.previous or {}).get("config", {}).get("base_url_host", ""),
                "model": contract.MODEL,
                "max_results": contract.MAX_RESULTS,
                "max_tokens_per_page": contract.MAX_TOKENS_PER_PAGE,
                "has_answer_cutoff": cutoffs.has_answer,
                "answer_cutoff": cutoffs.answer,
                "min_sentences": cutoffs.min_sentences,
                "has_answer_range": self.covered(),
            },
            "started_at": self.started,
            "finished_at": _now(),
            "requests": tally.as_record(),
            "responses": sum(i.summary.requests for i in items if i.summary),
            "input_tokens": sum(i.summary.input_tokens for i in items if i.summary),
            "errors": errors,
        }
        repeats = max((item.repeat for item in items), default=0) + 1
        if repeats > 1:  # absent means 1: runs recorded before repeats existed stay byte-identical
            record["config"]["repeats"] = repeats
        if self.previous is not None and tally.sent == 0:
            for key in ("started_at", "finished_at", "requests"):
                record[key] = self.previous.get(key, record[key])
        return record

    def covered(self) -> list[float]:
        """The HAS_ANSWER_CUTOFF range whose compare responses the run holds: this invocation's, joined
        with the last complete one's when the two overlap."""
        lo, hi = self.span
        before = (self.previous or {}).get("config", {}).get("has_answer_range")
        complete = (self.previous or {}).get("complete") and isinstance(before, list) and len(before) == 2
        if complete and before[0] <= hi and lo <= before[1]:
            lo, hi = min(lo, before[0]), max(hi, before[1])
        return [lo, hi]

    def save(self) -> dict:
        """Write run.json if anything changed since the last write; return what it holds now."""
        record = self.record()
        if write_run(self.run_dir, record, self.written):
            self.written = record
        return record


def show_decisions(items: list[QuestionRun], cutoffs: Cutoffs, evidence: str | None, out=None) -> list[Counter]:
    """Print each question's decision at the recorder's cutoffs (the first repeat's in full, the others'
    outcomes on one line), then the Outcome | Count table; return each repeat's counts."""
    out = out or sys.stdout
    if evidence == "synthetic":
        print("SYNTHETIC evidence: recorded against the stand-in API, not the real one.\n", file=out)
    by_question: dict[str, list[QuestionRun]] = {}
    for item in items:
        by_question.setdefault(item.question.question, []).append(item)
    repeats = max(item.repeat for item in items) + 1 if items else 1
    counts = [Counter() for _ in range(repeats)]
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
            print(f"  repeats: {', '.join(o.replace('_', '-') for o in outcomes)}", file=out)
        print(f"  -> {outcomes[0].replace('_', '-')}\n", file=out)
    label = " (synthetic)" if evidence == "synthetic" else ""
    print(f"At HAS_ANSWER_CUTOFF {cutoffs.has_answer:g}, ANSWER_CUTOFF {cutoffs.answer:g}{label}"
          f"{f', over {repeats} repeats' if repeats > 1 else ''}:\n", file=out)
    print("Outcome    | Count\n-----------|------", file=out)
    for outcome in [*(o.value for o in OUTCOMES), "not run"]:
        values = [c[outcome] for c in counts]
        if outcome in ("unjudged", "not run") and not any(values):
            continue
        low, high, mean = min(values), max(values), sum(values) / len(values)
        shown = f"{low:>5}" if low == high else f"{mean:>5.4g} ({low}-{high})"
        print(f"{outcome.replace('_', '-'):<10} | {shown}", file=out)
    return counts


def _outcome(item: QuestionRun) -> str:
    if item.summary is None:
        return "not run"
    return item.question.judge(item.summary.decision.sentence).value


def _show_one(item: QuestionRun, out) -> None:
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
        source = ", ".join(part for part in (c.title, c.url, c.date) if part)
        print(f'  "{terminal(c.sentence)}"\n  {terminal(source)}', file=out)


async def _record_interruptibly(recorder: Recorder, pending: list[QuestionRun], client: ApiClient,
                                concurrency: int, bar: tqdm) -> bool:
    """Record `pending`; return False if Ctrl+C or SIGTERM stopped it (finished questions are kept)."""
    loop = asyncio.get_running_loop()

    began = loop.time()

    def done(item: QuestionRun) -> None:
        bar.update(1)
        t = recorder.tally
        per_second = t.sent / max(loop.time() - began, 1e-9)
        bar.set_postfix_str(f"sent {t.sent} ({per_second:.1f} req/s), from cache {t.from_cache}, "
                            f"retries {t.retries}, errors {t.failed}")

    work = asyncio.create_task(recorder.record(pending, client, concurrency, done))
    handled = threading.current_thread() is threading.main_thread()  # signals reach the main thread only
    for sig in (signal.SIGINT, signal.SIGTERM) if handled else ():
        loop.add_signal_handler(sig, work.cancel)
    try:
        await work
        return True
    except asyncio.CancelledError:
        return False
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM) if handled else ():
            loop.remove_signal_handler(sig)


def refusal(pending: list[QuestionRun], run_dir: Path, offline: bool, key: str) -> str:
    """Why the missing responses cannot be fetched now ('' when they can)."""
    if offline:
        lines = [f"--offline: {len(pending)} question(s) need responses that {run_dir} does not hold:"]
        lines += [f"  {terminal(item.question.id)}{f' (repeat {item.repeat})' if item.repeat else ''}: "
                  f"missing {item.missing}" for item in pending[:SHOW_MISSING]]
        if len(pending) > SHOW_MISSING:
            lines.append(f"  ... and {len(pending) - SHOW_MISSING} more")
        return "\n".join(lines)
    if not key:
        return (f"eval.py: {len(pending)} question(s) need API requests that {run_dir} does not hold, and "
                "PERPLEXITY_API_KEY is not set. Set it (export PERPLEXITY_API_KEY=...) and rerun; nothing was sent.")
    return ""


def evaluate(args: argparse.Namespace, env: dict[str, str], transport=None) -> int:
    questions = load_questions(args.questions)
    run_dir = args.run or Path("runs") / questions.path.stem
    previous = read_run(run_dir)
    if args.offline and previous is None:
        raise InputError(f"{run_dir}: nothing is recorded there yet; run without --offline to record it")
    if previous is not None and (changes := question_changes(previous, questions)):
        print(f"The question set changed since {run_dir} was recorded: {changes}. "
              "Identical requests are reused.", file=sys.stderr)
    cutoffs = Cutoffs()
    coverage = Coverage(span=args.has_answer_range, points=(cutoffs.has_answer,))
    recorder = Recorder(ResponseCache(run_dir), coverage, cutoffs, previous and previous.get("evidence"))
    held = repeats_of(previous) if previous else 1
    repeats = max(args.repeats or held, held)
    if args.repeats and args.repeats < held:
        print(f"{run_dir} holds {held} repeats; all of them are kept and checked.", file=sys.stderr)
    # repeat by repeat, so that a repeat's requests reach the API after the first repeat's
    items = [recorder.replay(QuestionRun(q, r)) for r in range(repeats) for q in questions.questions]
    pending = [item for item in items if item.missing is not None]
    key = env.get("PERPLEXITY_API_KEY", "")
    if pending and (reason := refusal(pending, run_dir, args.offline, key)):
        print(reason, file=sys.stderr)
        return EXIT_INCOMPLETE

    session = Recording(questions, run_dir, previous, recorder, items, coverage.span)
    fatal = None
    with locked(run_dir):
        if pending:
            remove_temporaries(run_dir)
            base_url = env.get("PERPLEXITY_BASE_URL") or DEFAULT_BASE_URL
            session.host = check_base_url(base_url).host
            session.finished = False
            session.save()  # complete: false on disk before the first request
            try:
                session.finished = asyncio.run(_record(recorder, pending, args, base_url, key, transport))
            except QuoteFinderError as error:  # the key was refused, evidence would mix, or the disk is full
                fatal = error
        try:
            record = session.save()
        except StorageError:
            if fatal is not None:
                print(f"eval.py: {fatal}", file=sys.stderr)  # the first cause, before the one it led to
            raise
    if fatal:
        print(f"eval.py: {fatal}", file=sys.stderr)
        return EXIT_INCOMPLETE
    show_decisions(items, cutoffs, recorder.evidence)
    if recorder.tally.replaced:
        print(f"{recorder.tally.replaced} saved response(s) failed their checksum (torn or edited) and were "
              "requested again.", file=sys.stderr)
    if not session.finished:
        print("\nInterrupted: every response received so far is saved; rerun to resume.", file=sys.stderr)
    elif not record["complete"]:
        print(f"\n{len(record['errors'])} question(s) could not be completed; rerun to retry them "
              "(saved responses are reused).", file=sys.stderr)
    return EXIT_OK if record["complete"] else EXIT_INCOMPLETE


async def _record(recorder: Recorder, pending: list[QuestionRun], args: argparse.Namespace, base_url: str,
                  key: str, transport) -> bool:
    limiter = RateLimiter(args.rate)
    retry = RetryPolicy(retries=args.retries, base_s=args.backoff)

    def on_retry(error: Exception) -> None:
        recorder.tally.retries += 1

    async with ApiClient(base_url, key, transport=transport, timeout_s=args.timeout, retry=retry,
                         limiter=limiter, on_retry=on_retry) as client:
        with tqdm(total=len(pending), unit="question", file=sys.stderr, disable=None) as bar:
            return await _record_interruptibly(recorder, pending, client, args.concurrency, bar)


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM outside the recording loop: stop like Ctrl+C


def main(argv: list[str] | None = None, env: dict[str, str] | None = None, transport=None) -> int:
    args = build_parser().parse_args(argv)
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if in_main else None
    try:
        return evaluate(args, dict(os.environ) if env is None else env, transport)
    except QuoteFinderError as error:
        print(f"eval.py: {error}", file=sys.stderr)
        return EXIT_INCOMPLETE
    except KeyboardInterrupt:
        print("eval.py: interrupted; every response saved so far is kept, rerun to resume", file=sys.stderr)
        return EXIT_INCOMPLETE
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
