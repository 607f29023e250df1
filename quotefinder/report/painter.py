"""Drawing a report's PNGs in a child process, so that they take no longer than the rest of the sweep.

Importing matplotlib and drawing a dozen figures costs more than replaying and analysing a small run.
`Painter` forks a child as the sweep starts; the child imports matplotlib while the parent replays and
analyses, then draws the figures it is sent (`figures.plan`) while the parent writes the tables, the
summary and the HTML page. Where fork is unavailable it draws in-process. A failure in the child comes
back as the parent's error; nothing is left half-written (every PNG is written atomically, into the
report's staging directory). A child ends with the parent however the parent ends, `kill -9` included
(`die_with_parent`), so none outlives a sweep holding its stdout open.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import time
import traceback
from collections.abc import Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from ..core.errors import ReportError
from ..sweep.apart import die_with_parent, forking
from .figures import Figure

WAIT_AT_MOST = 600.0  # seconds for the figures of one report; far beyond any grid the sweep accepts


def _serve(parent: int, jobs_in: Connection, answers: Connection, parents: Sequence[Connection]) -> None:
    """The child: end with `parent`, close the parent's pipe ends it inherited (so that the parent closing them
    is the end of its input), import matplotlib now, draw what arrives, answer '' or what went wrong."""
    die_with_parent(parent)
    gc.enable()  # the sweep forked it with the collector paused (`cli.collector_paused`); matplotlib makes cycles
    for end in parents:
        end.close()
    job = None
    try:
        from . import plots

        try:
            jobs: Sequence[Figure] = jobs_in.recv()
        except EOFError:  # the sweep ended before it had anything to draw
            return
        for job in jobs:
            plots.draw(job)
        answers.send("")
    except OSError as error:
        where = Path(error.filename).with_name(job.name) if job and error.filename else error.filename or "a plot"
        answers.send(f"cannot write {where} ({error.strerror or error})")
    except BaseException as error:  # noqa: BLE001 (everything goes back to the parent, which reports it)
        answers.send(f"{job.name + ': ' if job else ''}{traceback.format_exception_only(error)[-1].strip()}")
    finally:
        answers.close()


class _Child:
    """One drawing process and the parent's ends of its two one-way pipes (OS pipes, not sockets)."""

    def __init__(self, process: Any, jobs: Connection, answers: Connection) -> None:
        self.process, self.jobs, self.answers = process, jobs, answers
        self.drawing = False  # sent figures, not answered yet

    def send(self, jobs: Sequence[Figure]) -> None:
        self.drawing = True
        self.jobs.send(jobs)

    def answer(self, deadline: float) -> str:
        if not self.answers.poll(max(0.0, deadline - time.monotonic())):
            return f"drawing took longer than {WAIT_AT_MOST:g} s"
        try:
            return self.answers.recv()
        except EOFError:
            return "the drawing process ended without an answer"
        finally:
            self.drawing = False

    def stop(self) -> None:
        """End the child: one waiting for work ends as its input closes; one still drawing, for a sweep that
        stopped (an error, Ctrl+C), is killed at once, its work wasted."""
        self.jobs.close()
        self.answers.close()
        if not self.drawing:
            self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


class Painter:
    """Draws figures in child processes started at construction (see the module docstring): one per core,
    up to `workers`, each drawing every n-th figure. One by default: each child imports matplotlib again (0.8 s of
    CPU), which on two busy cores cost more than the second child's share of the drawing saved (BENCHMARKS.md,
    "Every file against tables only")."""

    def __init__(self, workers: int = 1) -> None:
        self.jobs: list[Figure] = []
        self.children: list[_Child] = []
        if "fork" in multiprocessing.get_all_start_methods():
            import pandas  # noqa: F401 (here, once: the figures are sent as DataFrames; a child inherits it)

            try:
                self._fork(min(workers, os.cpu_count() or 1))
            except BaseException:  # a Ctrl+C held back while they started: no `with` will close them
                self.close()
                raise

    def _fork(self, workers: int) -> None:
        context = multiprocessing.get_context("fork")
        for n in range(max(1, workers)):
            jobs_in, jobs_out = context.Pipe(duplex=False)
            answers_in, answers_out = context.Pipe(duplex=False)
            parents = [end for child in self.children for end in (child.jobs, child.answers)]
            process = context.Process(target=_serve,
                                      args=(os.getpid(), jobs_in, answers_out, [*parents, jobs_out, answers_in]),
                                      daemon=True, name=f"quotefinder-painter-{n}")
            with forking():  # a Ctrl+C held back until the child is in the list `close` stops
                process.start()
                jobs_in.close()
                answers_out.close()
                self.children.append(_Child(process, jobs_out, answers_in))

    def start(self, jobs: Sequence[Figure]) -> None:
        """Send the figures to draw; `finish` waits for them."""
        self.jobs = list(jobs)
        for n, child in enumerate(self.children):
            with contextlib.suppress(OSError):  # the child has ended already; `finish` reads why
                child.send(self.jobs[n :: len(self.children)])

    def finish(self) -> None:
        """Wait until every figure is drawn; `ReportError` with what went wrong otherwise."""
        if not self.children:
            from . import plots

            for job in self.jobs:
                plots.draw(job)
            return
        deadline = time.monotonic() + WAIT_AT_MOST
        problems = [child.answer(deadline) for child in self.children]
        self.close()
        problem = next((p for p in problems if p), "")
        if problem:
            raise ReportError(f"a plot could not be drawn: {problem}")

    def close(self) -> None:
        """Stop the children still there (closing their input ends a child that is waiting for work)."""
        for child in self.children:
            child.stop()
        self.children = []

    def __enter__(self) -> Painter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
