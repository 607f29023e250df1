"""The HTTP client against `httpx.MockTransport`: the bytes it sends, retries, and what it refuses."""

from __future__ import annotations

import asyncio
import json
import urllib.parse

import httpx
import pytest

from conftest import KEY, TEN_QUESTIONS
from hostile import ODD_KEY, key_forms
from quotefinder.core.errors import ApiError, AuthError, InputError, InsecureEndpoint, KeyEchoed, TransientError
from quotefinder.evalcmd import main as eval_main
from quotefinder.recipe.config import RECIPE
from quotefinder.record.client import ApiClient, RateLimiter, RetryPolicy, check_base_url

NO_WAIT = RetryPolicy(retries=2, base_s=0.0, cap_s=0.0)
REQUEST = RECIPE.search_request("How many bones?")


def send(handler, base_url: str = "https://api.example", retry: RetryPolicy = NO_WAIT, request=REQUEST):
    async def go():
        async with ApiClient(base_url, KEY, transport=httpx.MockTransport(handler), retry=retry) as client:
            return await client.send(request)

    return asyncio.run(go())


def test_sends_the_exact_body_with_the_bearer_key_to_the_endpoint() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"results": []}, headers={"x-request-id": "abc"})

    received = send(handler, "https://api.perplexity.ai")
    [request] = seen
    assert (request.method, str(request.url)) == ("POST", "https://api.perplexity.ai/search")
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["content-type"] == "application/json"
    assert json.loads(request.content) == {"query": "How many bones?", "max_results": 5, "max_tokens_per_page": 2048}
    assert (received.data, received.status) == ({"results": []}, 200)
    assert (received.request_id, received.evidence) == ("abc", "live")


def test_the_stand_in_header_marks_a_response_synthetic() -> None:
    received = send(lambda r: httpx.Response(200, json={}, headers={"x-quotefinder-evidence": "synthetic"}))
    assert received.evidence == "synthetic"


def test_transient_failures_are_retried_up_to_the_bound() -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) == 1:
            return httpx.Response(429, headers={"Retry-After": "0"})
        if len(calls) == 2:
            raise httpx.ConnectError("reset")
        return httpx.Response(200, json={"results": []})

    assert send(handler).status == 200 and len(calls) == 3
    calls.clear()
    with pytest.raises(TransientError, match="returned 503"):
        send(lambda r: calls.append(1) or httpx.Response(503))
    assert len(calls) == 3


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_stops_at_once(status: int) -> None:
    calls = []
    with pytest.raises(AuthError, match="PERPLEXITY_API_KEY was refused") as caught:
        send(lambda r: calls.append(1) or httpx.Response(status, json={"error": "bad key"}))
    assert len(calls) == 1 and KEY not in str(caught.value)


def test_other_client_errors_are_not_retried() -> None:
    calls = []
    with pytest.raises(ApiError, match="returned 400") as caught:
        send(lambda r: calls.append(1) or httpx.Response(400, json={"error": "bad model"}))
    assert len(calls) == 1 and not isinstance(caught.value, TransientError)


@pytest.mark.parametrize("body", [b"<html>Service page</html>", b'{"answers": {"best"', b'{"p": NaN}'])
def test_a_200_that_is_not_strict_json_is_an_error(body: bytes) -> None:
    with pytest.raises(ApiError, match="not JSON"):
        send(lambda r: httpx.Response(200, content=body, headers={"content-type": "text/html"}))


def test_a_server_echoing_the_key_does_not_get_it_into_the_message() -> None:
    with pytest.raises(ApiError) as caught:
        send(lambda r: httpx.Response(400, text=f"bad header Authorization: Bearer {KEY}"))
    assert KEY not in str(caught.value) and "[key]" in str(caught.value)


@pytest.mark.parametrize("url", ["http://api.example", "http://10.0.0.5:8000", "ftp://api.example",
                                 "https://user:pw@api.example", "api.example"])
def test_the_key_never_travels_in_clear_text_or_to_odd_urls(url: str) -> None:
    with pytest.raises(InsecureEndpoint) as caught:
        check_base_url(url)
    assert KEY not in str(caught.value)


@pytest.mark.parametrize("url", ["https://api.perplexity.ai", "http://127.0.0.1:8765", "http://localhost:1",
                                 "http://[::1]:9000"])
def test_https_anywhere_and_plain_http_to_loopback_are_allowed(url: str) -> None:
    assert check_base_url(url).host


def test_retry_after_overrides_the_backoff_and_backoff_is_bounded() -> None:
    policy = RetryPolicy(retries=3, base_s=1.0, cap_s=4.0)
    assert all(7.0 <= policy.wait(0, retry_after=7.0) <= 8.75 for _ in range(50))  # never earlier than asked
    assert all(120.0 <= policy.wait(0, retry_after=10_000.0) <= 150.0 for _ in range(50))
    assert all(0.5 * min(4.0, 2**n) <= policy.wait(n, None) <= min(4.0, 2**n) for n in range(6))


def test_rate_limiter_spaces_starts_across_tasks() -> None:
    now = [100.0]
    waits: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        waits.append(round(seconds, 9))

    limiter = RateLimiter(4.0, clock=lambda: now[0], sleep=fake_sleep)

    async def go() -> None:
        await asyncio.gather(*(limiter.wait() for _ in range(4)))

    asyncio.run(go())
    assert waits == [0.25, 0.5, 0.75]
    waits.clear()
    now[0] += 10.0  # long idle: no burst credit beyond the next slot
    asyncio.run(go())
    assert waits == [0.25, 0.5, 0.75]


def test_redirects_are_not_followed_so_the_key_stays_with_the_base_url() -> None:
    hosts = []

    def handler(request: httpx.Request) -> httpx.Response:
        hosts.append(request.url.host)
        return httpx.Response(307, headers={"Location": "https://elsewhere.example/search"})

    with pytest.raises(ApiError, match="returned 307"):
        send(handler)
    assert hosts == ["api.example"]


def test_an_http_date_retry_after_without_a_zone_is_read_as_utc() -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) == 1:
            return httpx.Response(503, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 -0000"})
        return httpx.Response(200, json={"results": []})

    assert send(handler).status == 200 and len(calls) == 2


def test_a_key_echoed_across_the_cut_of_a_long_error_body_is_still_blanked() -> None:
    body = "x" * (300 - len(KEY) // 2) + KEY + " tail"
    with pytest.raises(ApiError) as caught:
        send(lambda r: httpx.Response(400, text=body))
    assert KEY[: len(KEY) // 2] not in str(caught.value)


def send_with(key: str, handler, request=REQUEST):
    async def go():
        transport = httpx.MockTransport(handler)
        async with ApiClient("https://api.example", key, transport=transport, retry=NO_WAIT) as client:
            return await client.send(request)

    return asyncio.run(go())


@pytest.mark.parametrize("form", key_forms(ODD_KEY))
def test_a_200_echoing_the_key_in_any_form_is_refused_naming_the_request(form: str) -> None:
    calls = []
    with pytest.raises(KeyEchoed) as caught:
        send_with(ODD_KEY, lambda r: calls.append(1) or httpx.Response(200, json={"results": [], "trace": form}))
    message = str(caught.value)
    assert "api.example/search: the response to the search echoes the API key" in message and len(calls) == 1
    assert not [shown for shown in key_forms(ODD_KEY) if shown in message]


@pytest.mark.parametrize("text", [f"Bearer {ODD_KEY}", ODD_KEY, f'{{"Authorization": "Bearer {ODD_KEY}"}}'])
def test_a_200_echoing_the_key_in_line_wrapped_base64_is_refused(text: str) -> None:
    """A proxy that echoes the request's headers as MIME base64 (`base64.encodebytes`: lines of 76 characters)."""
    import base64

    echoed = base64.encodebytes(b"x-forwarded: 1\n" * 5 + text.encode()).decode()
    with pytest.raises(KeyEchoed):
        send_with(ODD_KEY, lambda r: httpx.Response(200, json={"results": [], "trace": echoed}))


def test_a_200_hiding_the_key_behind_json_escapes_is_refused() -> None:
    hidden = "".join(f"\\u{ord(char):04x}" for char in KEY)
    with pytest.raises(KeyEchoed):
        send(lambda r: httpx.Response(200, content=f'{{"results": [], "x": "{hidden}"}}'.encode()))


@pytest.mark.parametrize("form", key_forms(ODD_KEY))
def test_a_request_id_echoing_the_key_is_kept_blanked(form: str) -> None:
    received = send_with(ODD_KEY, lambda r: httpx.Response(200, json={"results": []},
                                                          headers={"x-request-id": f"req-{form}"}))
    assert received.request_id == "req-[key]"


@pytest.mark.parametrize("form", key_forms(ODD_KEY))
def test_an_error_body_or_header_echoing_the_key_in_any_form_is_blanked(form: str) -> None:
    with pytest.raises(ApiError) as caught:
        send_with(ODD_KEY, lambda r: httpx.Response(400, text=f"bad credentials: {form}"))
    assert str(caught.value).endswith("bad credentials: [key]")
    with pytest.raises(ApiError) as caught:
        send_with(ODD_KEY, lambda r: httpx.Response(200, text="<html>", headers={"content-type": f"text/html; {form}"}))
    assert "not JSON (text/html; [key])" in str(caught.value)


def test_a_200_nested_deeper_than_an_entry_can_hold_is_an_error_not_a_crash() -> None:
    with pytest.raises(ApiError, match="nested deeper than a cache entry can hold"):
        send(lambda r: httpx.Response(200, content=b'{"results": [], "x": ' + b"[" * 300 + b"]" * 300 + b"}"))
    assert send(lambda r: httpx.Response(200, content=b'{"results": [], "x": ' + b"[" * 200 + b"]" * 200 + b"}"))


@pytest.mark.parametrize("key", ["pplx-abcé", "pplx-abc\n", "pplx abc"])
def test_a_key_no_header_can_carry_is_refused_before_anything_is_sent(key: str) -> None:
    calls = []
    with pytest.raises(InputError, match="PERPLEXITY_API_KEY holds") as caught:
        send_with(key, lambda r: calls.append(1) or httpx.Response(200, json={"results": []}))
    assert not calls and key not in str(caught.value)


# The key spelt one escaped character at a time, as a body that is not JSON can hold it (JSON decoding, which
# finds `\u0070` in a JSON body, never runs on it)
SPELT = {
    "json": lambda c: f"\\u{ord(c):04x}",
    "json upper-case": lambda c: f"\\u{ord(c):04X}",
    "python": lambda c: f"\\x{ord(c):02x}",
    "percent": lambda c: f"%{ord(c):02X}",
    "html decimal": lambda c: f"&#{ord(c)};",
    "html hex": lambda c: f"&#x{ord(c):x};",
    "percent of json": lambda c: urllib.parse.quote(f"\\u{ord(c):04x}"),
}


def spelt(key: str, style: str, every: int = 1) -> str:
    """`key` with every `every`-th character escaped in `style`, the others as they are."""
    return "".join(SPELT[style](c) if n % every == 0 else c for n, c in enumerate(key))


@pytest.mark.parametrize(("key", "every"), [(ODD_KEY, 1), (KEY, 2)])  # every character, or every other one
@pytest.mark.parametrize("style", SPELT)
def test_a_non_json_error_body_spelling_the_key_in_escapes_is_blanked(style: str, key: str, every: int) -> None:
    body = f"<html>bad credentials: {spelt(key, style, every)} (see the docs)</html>"
    with pytest.raises(ApiError) as caught:
        send_with(key, lambda r: httpx.Response(400, text=body, headers={"content-type": "text/html"}))
    message = str(caught.value)
    assert "returned 400: <html>bad credentials: [key] (see the docs)</html>" in message, message
    assert spelt(key, style, every) not in message
    assert not [form for form in key_forms(key) if form in message]


@pytest.mark.parametrize("style", SPELT)
def test_a_200_spelling_the_key_in_escapes_inside_a_text_is_refused(style: str) -> None:
    with pytest.raises(KeyEchoed):
        send_with(ODD_KEY, lambda r: httpx.Response(200, json={"results": [], "x": spelt(ODD_KEY, style)}))


def test_escapes_of_anything_but_the_key_are_left_as_written() -> None:
    body = "bad: \\u0041\\u0042 %41 &#65; \\u000a %0A \\u00e9 <b>"
    with pytest.raises(ApiError) as caught:
        send_with(ODD_KEY, lambda r: httpx.Response(400, text=body))
    assert str(caught.value).endswith(f"returned 400: {body}")


def test_a_key_spelt_in_escapes_reaches_neither_run_json_nor_the_terminal(tmp_path, capsys) -> None:
    body = f"denied for {spelt(ODD_KEY, 'json')}".encode()
    transport = httpx.MockTransport(lambda r: httpx.Response(400, content=body, headers={"content-type": "text/plain"}))
    run = tmp_path / "run"
    env = {"PERPLEXITY_API_KEY": ODD_KEY, "PERPLEXITY_BASE_URL": "https://api.example"}
    assert eval_main([str(TEN_QUESTIONS), "--run", str(run), "--rate", "0"], env=env, transport=transport) == 2
    captured = capsys.readouterr()
    errors = [entry["error"] for entry in json.loads((run / "run.json").read_text())["errors"]]
    assert errors and all("denied for [key]" in error for error in errors), errors
    for shown in [captured.out + captured.err, *errors]:
        assert spelt(ODD_KEY, "json") not in shown and ODD_KEY not in shown
