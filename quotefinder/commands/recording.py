"""The work of the recording verbs (`quotefinder record`, `refresh`), each parsed by its own parser: record the
pipeline's responses for a question set (or a refresh's sample), then show its decisions at the default cutoffs.
Everything already saved is served from the run's cache; only what is missing is sent, so an interrupted or
extended run resumes without paying twice.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import cli
from ..core.errors import QuoteFinderError
from ..core.pipelinefile import load_pipeline_file
from ..core.registry import DEFAULT_SYSTEM
from ..core.registry import system as find_system
from ..record.refresh import plan_refresh, refresh_options
from ..record.rundir import recorded_system
from ..record.secret import Secret
from ..record.session import Recording, RecordOptions
from ..report import decisions

if TYPE_CHECKING:
    import httpx

EXIT_OK, EXIT_INCOMPLETE = cli.EXIT_OK, cli.EXIT_ERROR


# Every option of the recording verbs, at its default: a verb has only its own options (one it lacks is left unset,
# `argparse.SUPPRESS`), and the work below reads them all.
DEFAULTS: dict[str, object] = {
    "questions": None, "run": None, "pipeline": None, "offline": False, "concurrency": 8, "rate": 10.0,
    "ranges": [], "repeats": None, "timeout": 30.0, "retries": 4, "refresh": None, "sample": None, "seed": 0,
    "estimate": False, "max_requests": None, "price_per_1k_requests": None, "price_per_million_tokens": None,
    "verbose": False, "backoff": 1.0, "force": False}


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


def recording_range(args: argparse.Namespace, parser: argparse.ArgumentParser, system: str
                    ) -> tuple[tuple[float, float], dict[str, tuple[float, ...]]]:
    """What to record: the first axis's span, for a system whose runs keep one (`System.legacy`: the quote finder's
    HAS_ANSWER_CUTOFF range, from --range has_answer=...; default 0:1), and the values of any other axis --range
    names. A usage error (exit 2) for an axis the system does not have, one that needs no range,
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
    return (spans.pop(first, (0.0, 1.0)) if first else (0.0, 1.0)), spans


def launch(parser: argparse.ArgumentParser, argv: list[str] | None, env: dict[str, str] | None,
           transport: httpx.AsyncBaseTransport | None, pipeline_of: Callable[[argparse.Namespace], list[str]]) -> int:
    """Run a recording verb: `parser`'s options, the system and pipeline that the words `pipeline_of(args)`
    name (`preparsed_pipeline`), then `run`."""
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
        prog: str = "quotefinder record") -> int:
    """Record (or, with `args.refresh`, refresh) as parsed by `parser` (a verb's: the options it lacks take their
    defaults, `DEFAULTS`); errors are prefixed with `prog`."""
    for name, default in DEFAULTS.items():
        if not hasattr(args, name):
            setattr(args, name, list(default) if isinstance(default, list) else default)
    try:
        span, ranges = recording_range(args, parser, system)
    except SystemExit as done:  # a usage error argparse has printed
        return int(done.code or 0)
    env = dict(os.environ) if env is None else env
    secret = Secret()  # the key of the run's API, once known: whatever a server echoes, no form of it is shown
    options = RecordOptions(span=span, repeats=args.repeats,
                            concurrency=args.concurrency, rate=args.rate, timeout_s=args.timeout,
                            retries=args.retries, backoff_s=args.backoff, max_requests=args.max_requests,
                            pipeline=pipeline, system=system, ranges=ranges,
                            replace_questions=args.force or args.estimate)  # (an estimate sends nothing)
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

