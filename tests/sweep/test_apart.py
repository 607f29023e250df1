"""Work done apart (`sweep.apart.Apart`): the same value whether a child computed it or this process did, a child's
error raised here as if raised here, and a child that dies or answers something unreadable replaced by the work
done here; a child ends with the block."""

from __future__ import annotations

import os
import time
from multiprocessing.connection import Connection

import pytest

from quotefinder.sweep.apart import Apart, answer


def pid_here() -> int:
    return os.getpid()


def in_child(work):
    def child(parent: int, sender: Connection) -> None:
        answer(parent, sender, work)
    return child


def test_an_answer_is_the_childs_and_the_same_value_as_here() -> None:
    with Apart("t", in_child(pid_here), pid_here, enabled=True) as apart:
        found = apart.result()
    assert found != os.getpid()  # worked out in a child
    with Apart("t", in_child(lambda: sorted({3, 1, 2})), lambda: sorted({3, 1, 2}), enabled=True) as apart:
        assert apart.result() == [1, 2, 3]
    with Apart("t", in_child(pid_here), pid_here, enabled=False) as apart:
        assert apart.result() == os.getpid()  # not enabled: here


def test_a_childs_error_is_raised_here() -> None:
    def refuses() -> object:
        raise ValueError("no such question file")

    with Apart("t", in_child(refuses), refuses, enabled=True) as apart, pytest.raises(ValueError,
                                                                                       match="no such question"):
        apart.result()


def test_a_child_that_dies_or_answers_nothing_readable_is_replaced_by_the_work_here() -> None:
    def dies(parent: int, sender: Connection) -> None:
        os._exit(9)

    with Apart("t", dies, pid_here, enabled=True) as apart:
        assert apart.result() == os.getpid()

    def unpicklable() -> object:
        return lambda: None

    with Apart("t", in_child(unpicklable), lambda: "here", enabled=True) as apart:
        assert apart.result() == "here"


def test_a_child_is_ended_with_the_block_when_its_answer_was_never_taken() -> None:
    def waits(parent: int, sender: Connection) -> None:
        time.sleep(600)  # stopped by the block's end, not waited for

    with Apart("t", waits, pid_here, enabled=True) as apart:
        child = apart.child
        assert child is not None and child.is_alive()
    child.join(timeout=30)
    assert not child.is_alive()
