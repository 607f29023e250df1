"""Driving a system's request flow (`plugin.Steps`): a generator that yields request batches (requests that do not
depend on each other), receives their responses in order, and returns its trace. A flow does no I/O, so recording
drives it over the network (`record`, a batch's requests together) and replay drives it from the response store
(`replay`, synchronous) through the same code.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from .plugin import Steps
from .requests import ApiRequest


def replay(flow: Steps, lookup: Callable[[ApiRequest], Any]) -> Any:
    """Drive `flow` synchronously; `lookup` returns a request's response or raises."""
    batch = next(flow)
    while True:
        try:
            batch = flow.send([lookup(request) for request in batch])
        except StopIteration as done:
            return done.value


async def record(flow: Steps, fetch: Callable[[ApiRequest], Awaitable[Any]]) -> Any:
    """Drive `flow` over the network; a batch's requests go out together.

    Every request of a batch runs to its end even when a sibling fails, so that each response
    that arrives is cached; then the first failure is raised.
    """
    import asyncio  # here: a sweep replays without it (`record.received`)

    batch = next(flow)
    while True:
        outcomes = await asyncio.gather(*(fetch(request) for request in batch), return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        try:
            batch = flow.send(outcomes)
        except StopIteration as done:
            return done.value
