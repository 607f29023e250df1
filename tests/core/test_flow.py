"""Driving a request flow: replay and record drive the same generator to the same trace, batch by batch with
the responses in order; a failed request in a batch is raised after every sibling has run to its end."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from quotefinder.core.flow import record, replay
from quotefinder.core.requests import ApiRequest


def two_batches(seen: list[list[Any]]):
    """A flow: one search, then one request per result, together; its trace is every response."""
    [found] = yield [ApiRequest("/search", {"q": "x"})]
    seen.append([found])
    answers = yield [ApiRequest("/rank", {"r": r}) for r in found]
    seen.append(answers)
    return ("trace", found, answers)


def respond(request: ApiRequest) -> Any:
    return [1, 2, 3] if request.path == "/search" else f"answer {request.body['r']}"


def test_replay_and_record_drive_the_flow_to_the_same_trace() -> None:
    replayed: list[list[Any]] = []
    recorded: list[list[Any]] = []

    async def fetch(request: ApiRequest) -> Any:
        await asyncio.sleep(0.01 * (3 - request.body.get("r", 0)))  # the last request answers first
        return respond(request)

    trace = replay(two_batches(replayed), respond)
    assert trace == ("trace", [1, 2, 3], ["answer 1", "answer 2", "answer 3"])  # in the batch's order
    assert asyncio.run(record(two_batches(recorded), fetch)) == trace
    assert recorded == replayed


def test_a_failure_in_a_batch_is_raised_after_its_siblings_finished() -> None:
    finished: list[int] = []

    async def fetch(request: ApiRequest) -> Any:
        if request.path == "/rank":
            if request.body["r"] == 1:
                raise RuntimeError("refused")
            await asyncio.sleep(0)
            finished.append(request.body["r"])
        return respond(request)

    with pytest.raises(RuntimeError, match="refused"):
        asyncio.run(record(two_batches([]), fetch))
    assert sorted(finished) == [2, 3]  # each response that arrives can be cached


def test_a_missing_response_in_replay_is_the_lookups_error() -> None:
    def lookup(request: ApiRequest) -> Any:
        if request.path == "/rank":
            raise KeyError(request.key)
        return respond(request)

    with pytest.raises(KeyError):
        replay(two_batches([]), lookup)
