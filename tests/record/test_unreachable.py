"""An API that cannot be reached is one condition: the recording stops after `UNREACHABLE_AFTER` connect failures
in all (not a retry storm per question), says so in one line naming the base URL and what to check, exits 2, and
keeps every response already saved."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import httpx
import pytest

from conftest import KEY, TEN_QUESTIONS, TEN_SCENARIO, env_for
from quotefinder.core.errors import TransientError, Unreachable
from quotefinder.evalcmd import main as eval_main
from quotefinder.recipe.config import RECIPE
from quotefinder.record.client import CONNECT_TIMEOUT_S, UNREACHABLE_AFTER, ApiClient, RetryPolicy
from quotefinder.record.session import RecordOptions

NO_WAIT = RetryPolicy(retries=4, base_s=0.0, cap_s=0.0)
REQUEST = RECIPE.search_request("How many bones?")


def refusing(calls: list[httpx.Request], error: type[httpx.TransportError] = httpx.ConnectError):
    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        raise error("no route to host", request=request)

    return handler


def _send(handler) -> None:
    async def go() -> None:
        async with ApiClient("https://api.example", KEY, transport=httpx.MockTransport(handler),
                             retry=NO_WAIT) as client:
            await client.send(REQUEST)

    asyncio.run(go())


@pytest.mark.parametrize("error", [httpx.ConnectError, httpx.ConnectTimeout])
def test_connect_failures_before_any_answer_stop_without_the_retries(error) -> None:
    calls: list[httpx.Request] = []
    with pytest.raises(Unreachable) as caught:
        _send(refusing(calls, error))
    assert len(calls) == UNREACHABLE_AFTER < NO_WAIT.retries + 1
    message = str(caught.value)
    assert "cannot reach the API at https://api.example" in message and "\n" not in message
    assert "PERPLEXITY_BASE_URL" in message and "--offline" in message and "network" in message


def test_after_the_api_answered_a_connect_failure_is_retried_as_before() -> None:
    calls: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if len(calls) == 1:
            return httpx.Response(429, headers={"Retry-After": "0"})
        raise httpx.ConnectError("reset", request=request)

    with pytest.raises(TransientError, match="connection failed"):
        _send(handler)
    assert len(calls) == NO_WAIT.retries + 1


def test_the_connect_timeout_is_a_few_seconds() -> None:
    client = ApiClient("https://api.example", KEY, timeout_s=30.0)
    assert client._http.timeout.connect == CONNECT_TIMEOUT_S <= 5.0
    assert client._http.timeout.read == 30.0
    asyncio.run(client.__aexit__())


def _assert_one_line(err: str, base_url: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"quotefinder record: cannot reach the API at {base_url}") and "--offline" in lines[0]
    assert "connection failed" not in err and KEY not in err


def test_a_recording_with_no_network_says_so_once_and_exits_2(tmp_path: Path, capsys) -> None:
    calls: list[httpx.Request] = []
    run = tmp_path / "run"
    env = {"PERPLEXITY_API_KEY": KEY, "PERPLEXITY_BASE_URL": "https://api.example"}
    assert eval_main([str(TEN_QUESTIONS), "--run", str(run), "--rate", "0", "--backoff", "0"], env=env,
                     transport=httpx.MockTransport(refusing(calls))) == 2
    _assert_one_line(capsys.readouterr().err, "https://api.example")
    assert len(calls) <= UNREACHABLE_AFTER + RecordOptions().concurrency  # and those already in flight, at most
    assert json.loads((run / "run.json").read_text())["complete"] is False


def test_a_closed_loopback_port_is_unreachable_in_one_line(tmp_path: Path, capsys) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago and has no listener now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}"
    env = {"PERPLEXITY_API_KEY": KEY, "PERPLEXITY_BASE_URL": base_url}
    assert eval_main([str(TEN_QUESTIONS), "--run", str(tmp_path / "run"), "--rate", "0"], env=env) == 2
    _assert_one_line(capsys.readouterr().err, base_url)


def test_what_was_received_before_the_network_went_is_kept(tmp_path: Path, standin_for, capsys) -> None:
    server = standin_for(TEN_SCENARIO)
    run = tmp_path / "run"
    assert eval_main([str(TEN_QUESTIONS), "--run", str(run), "--rate", "0", "--max-requests", "11"],
                     env=env_for(server)) == 2
    saved = {p: p.read_bytes() for p in run.rglob("*") if p.is_file() and p.name != "run.json"}
    capsys.readouterr()
    env = {"PERPLEXITY_API_KEY": KEY, "PERPLEXITY_BASE_URL": "https://api.example"}
    assert eval_main([str(TEN_QUESTIONS), "--run", str(run), "--rate", "0", "--backoff", "0"], env=env,
                     transport=httpx.MockTransport(refusing([]))) == 2
    _assert_one_line(capsys.readouterr().err, "https://api.example")
    assert saved and all(p.read_bytes() == content for p, content in saved.items())
    assert json.loads((run / "run.json").read_text())["complete"] is False
