"""`python eval.py QUESTIONS.yaml`: record the pipeline's responses for a question set, then show its
decisions at the default cutoffs. Everything already saved is served from the run's cache; only what
is missing is sent, so an interrupted or extended run resumes without paying twice.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import cli
from ..core import values
from ..core.errors import QuoteFinderError
from ..core.pipelinefile import load_pipeline_file
from ..core.registry import DEFAULT_SYSTEM
from ..core.registry import system as find_system
from ..record.client import DEFAULT_BASE_URL
from ..record.refresh import plan_refresh, refresh_options
from ..record.rundir import recorded_system
from ..record.secret import Secret
from ..record.session import Recording, RecordOptions
from ..report import decisions

if TYPE_CHECKING:
    import httpx

EXIT_OK, EXIT_INCOMPLETE = cli.EXIT_OK, cli.EXIT_ERROR


def axes_help(system: str) -> str:
    """The system's cutoff axes for --help: each one's name, title, default and what it does, and whether a
    recording must cover it (`--range NAME=START:STOP`)."""
    axes = find_system(system).axes
    width = max(len(axis.name) for axis in axes)
    lines = [f"the axes of the {system} system (--range NAME=VALUES):"]
    for axis in axes:
        if not axis.recorded:
            covered = "any recording covers every value: it takes no --range"
        elif axis.kind == "cutoff":
            covered = ("a recording covers the compare requests START to STOP needs (--range NAME=START:STOP, "
                       "default 0:1)")
        elif axis.kind == "choice":
            covered = (f"a recording covers the values listed, e.g. --range {axis.name}={','.join(axis.choices[:2])} "
                       "(default: the pipeline's own)")
        else:
            covered = (f"a recording covers the values START:STOP[:STEP] or A,B,C, e.g. --range {axis.name}="
                       f"{axis.whole[0] if axis.whole else 1}:{axis.whole[1] if axis.whole else 1} (default: the "
                       "pipeline's own)")
        lines.append(f"  {axis.name:<{width}}  {axis.title} (default {axis.shown(axis.default)}): {axis.words}")
        lines.append(f"  {'':<{width}}  {covered}")
    return "\n".join(lines) + "\n"


def build_parser(system: str = DEFAULT_SYSTEM) -> argparse.ArgumentParser:
    """eval.py's options; --help lists the axes of `system` (the one a --pipeline file names)."""
    under_test = find_system(system)
    point = ", ".join(f"{axis.title} {axis.shown(axis.default)}" for axis in under_test.axes)
    default = under_test.default_words or "the pipeline's"
    parser = argparse.ArgumentParser(
        prog="eval.py",
        description=__doc__ + (
            f"\nIt prints each question's decision at {default} "
            f"default {under_test.settings} ({point})\nand the Outcome | Count table; "
            "`sweep.py RUN` replays the run over a grid of both cutoffs.\n\n" + under_test.help_text + "\n"
            + axes_help(system)),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "environment (each system speaks to its API; a key is needed only when something must be fetched,\n"
            "printable ASCII without spaces, never written or shown in any form):\n"
            "  PERPLEXITY_API_KEY    the quote finder's key (Search and Decisions APIs)\n"
            f"  PERPLEXITY_BASE_URL   default {DEFAULT_BASE_URL}; point it at a proxy or the stand-in\n"
            "  QUOTEANSWER_API_KEY   the quote-answer system's key (sent as a bearer token)\n"
            "  QUOTEANSWER_BASE_URL  the quote-answer API's address (no default: set it)\n\n"
            "exit status: 0 the run is complete; 2 something kept it from completing (rerun to resume);\n"
            f"{cli.BROKEN_PIPE_HELP}\n\n"
            "examples:\n"
            "  python eval.py questions/ten.yaml               # replays runs/ten/ from its cache\n"
            "  python eval.py questions/mine.yaml --run runs/mine-live\n"
            "  python eval.py questions/ten.yaml --offline     # never connects; lists what is missing\n"
            "  python eval.py questions/ten.yaml --pipeline pipelines/terse-criteria.yaml  # runs/ten-terse-criteria/\n"
            "  python eval.py --refresh runs/mine-live --sample 200 --seed 20261201 --run runs/mine-2026-12 --estimate"
        ),
    )
    parser.add_argument("questions", type=Path, nargs="?",
                        help="a questions YAML file (see questions/ten.yaml); not with --refresh, which samples the "
                        "refreshed run's own")
    parser.add_argument("--run", type=Path, metavar="DIR",
                        help="run directory (default: runs/<questions file stem>; with a --pipeline that does not "
                        "send the recipe's requests, runs/<questions file stem>-<pipeline name>)")
    parser.add_argument("--pipeline", type=Path, metavar="FILE",
                        help="record with this pipeline file (`python -m quotefinder.pipelines show` prints the "
                        "recipe's, to copy and edit); default: the run's own recorded pipeline, or the recipe's for "
                        "a new run. A run holds one pipeline: another one is refused (exit 2)")
    parser.add_argument("--offline", action="store_true", help="never connect; exit 2 listing any response missing")
    parser.add_argument("--concurrency", type=values.concurrency, default=8, metavar="N",
                        help="questions in flight at once (default 8)")
    parser.add_argument("--rate", type=values.rate, default=10.0,
                        metavar="R",
                        help="requests per second across all questions (default 10, the Decisions API limit; 0: none)")
    parser.add_argument("--range", type=cli.named_values, action="append", default=[], metavar="NAME=VALUES",
                        dest="ranges",
                        help="record what a sweep over these values of axis NAME needs, e.g. --range "
                        "has_answer=0.2:0.5 (a cutoff from START to STOP, both included), --range passages=1:12, "
                        "--range tier=instant,deep (the axes are listed above; repeatable, one per axis)")
    parser.add_argument("--has-answer-range", type=cli.cutoff_range, metavar="START:STOP",
                        help="the same as --range has_answer=START:STOP: record the compare request of every "
                        "qualified set that a HAS_ANSWER_CUTOFF from START to STOP (both included) selects, so that "
                        "any sweep with --has-answer inside that range replays exact responses (default 0:1; a "
                        "sweep's START:STOP:STEP is accepted too)")
    parser.add_argument("--repeats", type=values.repeats, metavar="N",
                        help="independent observations of every request (default: as many as the run holds, "
                        "or 1); raising it sends only the new repeats")
    parser.add_argument("--timeout", type=values.timeout, default=30.0,
                        metavar="S", help="seconds per request attempt (default 30)")
    parser.add_argument("--retries", type=values.retries, default=4, metavar="N",
                        help="retries of a transient failure (default 4)")
    again = parser.add_argument_group(
        "refresh (is the evidence still true? `sweep.py NEW --drift` compares the two runs)")
    again.add_argument("--refresh", type=Path, metavar="RUN",
                       help="record a seeded sample of RUN's questions afresh into --run NEW (required): the same "
                       "pipeline, repeats and axis values, nothing served from RUN's cache; NEW's run.json names RUN, "
                       "the digest of its run.json and when each was recorded")
    again.add_argument("--sample", type=values.positive_int, metavar="N",
                       help="with --refresh: how many questions, stratified by label (each label its share)")
    again.add_argument("--seed", type=values.seed, default=0, metavar="S",
                       help="with --refresh: the seed of the sample (default 0; use a new one for each refresh you "
                       "monitor, e.g. the date as YYYYMMDD)")
    cost = parser.add_argument_group("cost")
    cost.add_argument("--estimate", action="store_true",
                      help="send nothing; print how many requests and input tokens recording what is missing would "
                      "take (at most, and expected), how long at --rate, and what it costs with the prices below")
    cost.add_argument("--max-requests", type=values.count, metavar="N",
                      help="send at most N requests in this invocation (retries included), then stop as Ctrl+C "
                      "would: everything received is saved, and the next invocation goes on")
    cost.add_argument("--price-per-1k-requests", type=values.price, metavar="P",
                      help="with --estimate: what 1,000 requests cost, in your currency")
    cost.add_argument("--price-per-million-tokens", type=values.price, metavar="P",
                      help="with --estimate: what a million input tokens cost")
    parser.add_argument("--verbose", action="store_true",
                        help=f"print every question's decision, however many (past {decisions.SCREENFUL} they go to "
                        f"{decisions.DECISIONS_FILE} in the run)")
    parser.add_argument("--backoff", type=values.backoff, default=1.0,
                        metavar="S",
                        help="first wait before a retry, doubling each time up to 30 s, unless the API sends "
                        "Retry-After (default 1)")
    return parser


def preparsed_pipeline(argv: list[str]) -> tuple[str, Any]:
    """The system and pipeline of a --pipeline FILE among `argv`; without one, the system the --run DIR was
    recorded with (and None: the run's own pipeline), else the default system's. Read before the parser is built, so
    that --help and --range know that system's axes. `InputError` for a bad file."""
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--pipeline", type=Path)
    early.add_argument("--run", type=Path)
    early.add_argument("--refresh", type=Path)
    found, _ = early.parse_known_args(argv)
    if found.pipeline is None:
        recorded = next((recorded_system(run) for run in (found.refresh, found.run) if run is not None), None)
        return recorded or DEFAULT_SYSTEM, None
    return load_pipeline_file(found.pipeline)


def refresh_refusal(args: argparse.Namespace) -> str:
    """Why the refresh options do not go together ('' when they do)."""
    if args.refresh is None:
        if args.sample is not None:
            return "--sample N samples the run --refresh RUN names: give --refresh RUN"
        return "" if args.questions is not None else "give a questions file (or --refresh RUN --sample N --run NEW)"
    taken = [flag for flag, given in (("a questions file", args.questions is not None),
                                      ("--pipeline", args.pipeline is not None), ("--range", bool(args.ranges)),
                                      ("--has-answer-range", args.has_answer_range is not None),
                                      ("--repeats", args.repeats is not None)) if given]
    if taken:
        return (f"--refresh records with the refreshed run's own questions, pipeline, repeats and axis values: leave "
                f"out {', '.join(taken)}")
    if args.sample is None:
        return "--refresh RUN needs --sample N: how many of its questions to record afresh"
    if args.run is None:
        return "--refresh RUN needs --run NEW: the new run directory the sample is recorded into"
    return ""


def recording_range(args: argparse.Namespace, parser: argparse.ArgumentParser, system: str
                    ) -> tuple[tuple[float, float], dict[str, tuple[float, ...]]]:
    """What to record: the first axis's span, for a system whose runs keep one (`System.legacy`: the quote finder's
    HAS_ANSWER_CUTOFF range, from --range has_answer=... or --has-answer-range; default 0:1), and the values of any
    other axis --range names. A usage error (exit 2) for an axis the system does not have, one that needs no range,
    one given twice, or values it does not take."""
    under_test = find_system(system)
    axes = {axis.name: axis for axis in under_test.axes}
    first = under_test.axes[0].name if under_test.legacy is not None else None  # recorded as one span
    spans: dict[str, Any] = {}
    for name, text in args.ranges:
        if name not in axes:
            parser.error(f"--range {name}=...: the {system} system has no axis `{name}`; its axes are: "
                         f"{', '.join(axes)}")
        if not axes[name].recorded:
            parser.error(f"--range {name}=...: every {axes[name].title} is covered by any recording, so `{name}` "
                         f"takes no --range (the axes a recording covers: "
                         f"{', '.join(n for n, a in axes.items() if a.recorded)})")
        if name in spans:
            parser.error(f"--range {name}=... is given twice; give each axis once")
        try:
            spans[name] = cli.cutoff_range(text) if axes[name].kind == "cutoff" else axes[name].listed(text)
            if axes[name].kind == "cutoff" and name != first:  # a span among the values recorded
                spans[name] = (spans[name],)
        except (argparse.ArgumentTypeError, ValueError) as error:
            parser.error(f"--range {name}={text}: {error}")
    if args.has_answer_range is not None:  # the older flag of the axis whose sweep flag is --has-answer
        named = next((a.name for a in axes.values() if a.flag and a.recorded and a.flag + "-range" ==
                      "--has-answer-range"), None)
        if named is None:
            parser.error(f"--has-answer-range: the {system} system has no such axis; its axes are: "
                         f"{', '.join(axes)} (--range NAME=...)")
        if named in spans:
            parser.error(f"--has-answer-range is --range {named}=...: give one of them")
        spans[named] = args.has_answer_range if named == first else (args.has_answer_range,)
    return (spans.pop(first, (0.0, 1.0)) if first else (0.0, 1.0)), spans


@cli.quiet_on_a_closed_stdout  # the run is saved before anything is printed: a closed pipe loses nothing
@cli.guarded("eval.py")
def main(argv: list[str] | None = None, env: dict[str, str] | None = None,
         transport: httpx.AsyncBaseTransport | None = None) -> int:
    """`python eval.py ...`: the recording and refreshing options in one parser, as the project has always been
    run; routed to `record` or, with --refresh, to `refresh`."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        system, pipeline = preparsed_pipeline(argv)
    except QuoteFinderError as error:  # a bad pipeline file: named with its line, before anything else
        cli.report_error("eval.py", error)
        return EXIT_INCOMPLETE
    try:
        parser = build_parser(system)
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, or a usage error argparse has printed
        return int(done.code or 0)
    return run(args, parser, system, pipeline, env, transport)


def launch(parser: argparse.ArgumentParser, argv: list[str] | None, env: dict[str, str] | None,
           transport: httpx.AsyncBaseTransport | None, pipeline_of: Callable[[argparse.Namespace], list[str]]) -> int:
    """Run a recording verb: `parser`'s options, the system and pipeline that the eval.py words
    `pipeline_of(args)` name (`preparsed_pipeline`), then `run`."""
    try:
        args = parser.parse_args(sys.argv[2:] if argv is None else argv)  # after `quotefinder VERB`
    except SystemExit as done:  # --help, or a usage error argparse has printed
        return int(done.code or 0)
    try:
        system, pipeline = preparsed_pipeline(pipeline_of(args))
    except QuoteFinderError as error:  # a bad pipeline file, named with its line
        cli.report_error(parser.prog, error)
        return EXIT_INCOMPLETE
    return run(args, parser, system, pipeline, env, transport, prog=parser.prog)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser, system: str, pipeline: Any,
        env: dict[str, str] | None = None, transport: httpx.AsyncBaseTransport | None = None,
        prog: str = "eval.py") -> int:
    """Record (or, with `args.refresh`, refresh) as parsed by `parser` (a verb's, or eval.py's; options it lacks
    take eval.py's defaults); errors are prefixed with `prog`."""
    for action in build_parser(system)._actions:
        if action.dest != "help" and not hasattr(args, action.dest):
            setattr(args, action.dest, action.default)
    try:
        span, ranges = recording_range(args, parser, system)
        if refusal := refresh_refusal(args):
            parser.error(refusal)
    except SystemExit as done:  # a usage error argparse has printed
        return int(done.code or 0)
    env = dict(os.environ) if env is None else env
    secret = Secret()  # the key of the run's API, once known: whatever a server echoes, no form of it is shown
    options = RecordOptions(span=span, repeats=args.repeats,
                            concurrency=args.concurrency, rate=args.rate, timeout_s=args.timeout,
                            retries=args.retries, backoff_s=args.backoff, max_requests=args.max_requests,
                            pipeline=pipeline, system=system, ranges=ranges)
    with cli.sigterm_as_interrupt():
        try:
            if args.refresh is not None:
                plan = plan_refresh(args.refresh, args.run, args.sample, args.seed)
                recording = Recording.open(plan.questions.path, plan.run_dir, refresh_options(plan, options),
                                           decisions.notice, questions=plan.questions, refresh=plan.refresh)
                decisions.notice(decisions.refreshing_words(plan))
            else:
                recording = Recording.open(args.questions, args.run, options, decisions.notice)
            api = recording.api
            key = env.get(api.key_variable, "")
            secret = Secret(key)
            if not recording.pipeline.is_recipe:
                decisions.notice(f"Pipeline `{recording.pipeline.name}` ({recording.system.name}, digest "
                                 f"{recording.pipeline.digest[:12]}), run {recording.run_dir}")
            if args.estimate:
                decisions.show_estimate(recording, args.rate, args.price_per_1k_requests,
                                        args.price_per_million_tokens)
                return EXIT_OK
            if refusal := recording.refusal(args.offline, key):
                print(secret.redact(f"{prog}: {refusal}"), file=sys.stderr)
                return EXIT_INCOMPLETE
            with decisions.RecordingBar(recording) as bar:
                record = recording.run(env.get(api.base_variable) or api.default_base, key, transport, bar.done)
            decisions.report_decisions(recording, args.verbose)
            decisions.show_recording_end(recording, record)
            return EXIT_OK if record.complete else EXIT_INCOMPLETE
        except QuoteFinderError as error:
            cli.report_error(prog, error, secret.redact)
            return EXIT_INCOMPLETE
        except KeyboardInterrupt:
            print(f"{prog}: interrupted; every response saved so far is kept, rerun to resume", file=sys.stderr)
            return EXIT_INCOMPLETE


if __name__ == "__main__":
    sys.exit(main())
