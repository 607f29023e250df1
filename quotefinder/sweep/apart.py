"""Work done apart: in a forked child on the other core, while the sweep goes on in this process.

`forking` and `die_with_parent` are what every child of a sweep needs (the replay workers, the question parse,
the check of the index's entries, the index written): none runs the parent's signal handlers, and
none outlives it. `Apart` is one answer computed in a child and collected later, or computed here when no child
can be had, or the child dies or answers something unreadable: the same value either way, and the same error.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.process
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from typing import Generic, TypeVar

T = TypeVar("T")
_NO_ANSWER = object()

_STOPS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def forking() -> Iterator[None]:
    """Around starting child processes: Ctrl+C and SIGTERM held back in this thread, so that a child (which
    starts with this thread's mask) never runs the parent's handlers before `die_with_parent` has set its own;
    the parent gets any that arrived as the block ends."""
    if not hasattr(signal, "pthread_sigmask"):  # no signal masks (and no fork) here
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def die_with_parent(parent: int) -> None:
    """Make this forked child end when `parent`, the process that forked it, ends, however it ends (`kill -9`
    included), so that no child outlives a sweep holding its stdout open: a thread checks the parent five times a
    second (`_watch`), as portable as Python (the kernel's own watch, Linux's `prctl(PR_SET_PDEATHSIG)`, would need
    `ctypes` for no gain a user sees). The child leaves Ctrl+C to the parent (a terminal sends it to the whole
    process group; the parent stops its children and says so in one line) and takes SIGTERM's default action,
    whatever handler it inherited."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)  # held back by `forking`: a Ctrl+C meanwhile is dropped
    if os.getppid() != parent:  # the parent ended before the watch began
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), daemon=True, name="quotefinder-parent-watch").start()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(1)


def answer(parent: int, sender: Connection, work: Callable[[], object]) -> None:
    """A child's whole life (`Apart`): end with `parent`; send back what `work()` returns, or the error that stopped
    it (as a value, so that the parent raises it without a remote traceback)."""
    die_with_parent(parent)
    found: object
    try:
        found = work()
    except Exception as error:  # raised by the parent
        found = error
    with contextlib.suppress(Exception):  # an answer that cannot be pickled: the parent, getting none, works here
        sender.send(found)
    sender.close()


class Apart(Generic[T]):
    """One answer worked out apart. With `enabled` (and fork to be had), `child(parent_pid, sender)` runs in a
    forked child at once (`answer` is what a child does: send `here()`'s value, or its error); `result()` takes
    the child's answer, raising an error it sent as if it had been raised here. With no child (not enabled, fork
    refused: a process limit, memory), or a child that died (killed, out of memory) or sent something unreadable,
    `result()` calls `here()` instead. The child is a plain process with a pipe (no pool, so this process has no
    helper threads when later workers fork), killed at once when the block ends without its answer (Ctrl+C, an
    error): it holds nothing that would be lost."""

    def __init__(self, name: str, child: Callable[[int, Connection], None], here: Callable[[], T],
                 enabled: bool) -> None:
        self.here = here
        self.child: multiprocessing.process.BaseProcess | None = None
        self.answer: Connection | None = None
        if enabled and "fork" in multiprocessing.get_all_start_methods():
            context = multiprocessing.get_context("fork")
            answers, sender = context.Pipe(duplex=False)
            process = context.Process(target=child, args=(os.getpid(), sender), daemon=True, name=name)
            try:
                with forking():  # a Ctrl+C held back until the child is ours to stop
                    process.start()
                    self.child, self.answer = process, answers
            except OSError:
                pass  # no process to be had: worked out here
            finally:
                sender.close()
                if self.answer is None:
                    answers.close()

    def result(self) -> T:
        if self.child is None or self.answer is None:
            return self.here()
        grace = 0.0
        found: object = _NO_ANSWER
        try:
            found = self.answer.recv()
            grace = 5.0  # answered: it is ending on its own
        except Exception:  # EOFError above all: the child died before it answered, or its answer is unreadable
            pass
        finally:
            self.close(grace)
        if found is _NO_ANSWER:
            return self.here()  # worked out here instead
        if isinstance(found, BaseException):
            raise found
        return found  # type: ignore[return-value]

    def __enter__(self) -> Apart[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self, grace: float = 0.0) -> None:
        """Stop the child if it is still running after `grace` seconds (nothing of it is kept), and reap it."""
        if self.child is not None:
            if grace:
                self.child.join(grace)
            if self.child.is_alive():
                self.child.kill()
            self.child.join()
            self.child = None
        if self.answer is not None:
            self.answer.close()
            self.answer = None
