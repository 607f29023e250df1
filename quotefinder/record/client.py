"""HTTP to the Search and Decisions APIs. The only module that talks to the network.

`ApiClient.send` posts one `ApiRequest` with the bearer key, retries transient failures (429, 5xx,
dropped connections, timeouts) with bounded exponential backoff that honours `Retry-After`, and
returns the parsed JSON with the exchange's metadata. A 401 or 403 raises `AuthError` at once. Until the API
has answered once, connecting is given `CONNECT_TIMEOUT_S` and `UNREACHABLE_AFTER` attempts in all (across
every request): then `Unreachable` says, once, that the API cannot be reached. The
network is a constructor argument (`transport=`), so tests swap in `httpx.MockTransport` or point
the client at the stand-in server over loopback.

The key is held privately and sent only in the Authorization header, only to the configured base
URL, and never over plain http except to a loopback host. It never appears in a message or a request id
(`secret.Secret` blanks every form a server could echo it in), and a 200 whose body carries it back is
refused (`KeyEchoed`), as is one nested deeper than a cache entry can hold.
"""

from __future__ import annotations

import asyncio
import email.utils
import ipaddress
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import orjson

from ..core.errors import (
    ApiError,
    AuthError,
    BudgetSpent,
    InputError,
    InsecureEndpoint,
    KeyEchoed,
    TransientError,
    Unreachable,
)
from ..core.perplexity import PERPLEXITY
from ..core.plugin import ApiSpec
from ..core.requests import ApiRequest
from .received import Received, describe
from .secret import Secret, key_problem

DEFAULT_BASE_URL = PERPLEXITY.default_base
EVIDENCE_HEADER = "x-quotefinder-evidence"  # set by the stand-in; the real API never sends it
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 120.0
CONNECT_TIMEOUT_S = 4.0  # at most, to open a connection: a reachable API answers a connect in well under a second
UNREACHABLE_AFTER = 2  # connect failures, across every request, before the API ever answered: it cannot be reached


class RequestBudget:
    """At most `limit` HTTP requests (retries included) for one invocation; None: no limit. A request is
    counted when it starts, so one in flight counts."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        self.spent = 0

    def take(self) -> None:
        """Count one request about to be sent; `BudgetSpent` (and nothing sent) when none is left."""
        if self.limit is not None and self.spent >= self.limit:
            raise BudgetSpent(f"sent the {self.limit} request(s) --max-requests allows")
        self.spent += 1


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries: `retries` more attempts, waiting base * 2**n seconds (capped), with jitter.

    A `Retry-After` header sets the least wait (capped at two minutes); up to a quarter more is added
    at random, so requests refused together do not all come back in the same instant.
    """

    retries: int = 4
    base_s: float = 1.0
    cap_s: float = 30.0

    def wait(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, MAX_RETRY_AFTER_S) * random.uniform(1.0, 1.25)
        return min(self.cap_s, self.base_s * 2**attempt) * random.uniform(0.5, 1.0)


class RateLimiter:
    """Spaces request starts at least 1/rate seconds apart across every task that shares it.

    `rate` 0 means no limit. `clock` and `sleep` are injectable for tests.
    """

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self._next = float("-inf")
        self._clock = clock
        self._sleep = sleep

    async def wait(self) -> None:
        if not self.interval:
            return
        now = self._clock()  # no await between reading and booking the slot: tasks cannot interleave here
        start = max(now, self._next)
        self._next = start + self.interval
        if start > now:
            await self._sleep(start - now)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _unescaped(content: bytes) -> str:
    """An error body as text, its JSON escapes decoded when it is JSON (`\\u0070` is a `p`), so that a key
    echoed escaped character by character is still found and blanked."""
    try:
        return orjson.dumps(orjson.loads(content)).decode()
    except (orjson.JSONDecodeError, TypeError):
        return content.decode("utf-8", "replace")


def check_base_url(base_url: str, variable: str = "PERPLEXITY_BASE_URL") -> httpx.URL:
    """The base URL if the key may be sent there: https anywhere, plain http only to loopback. `variable` is
    where it was set, for the message."""
    if not base_url:
        raise InsecureEndpoint(f"{variable} is not set: this API has no default address; export {variable}=https://...")
    url = httpx.URL(base_url)
    if url.scheme not in ("http", "https") or not url.host:
        raise InsecureEndpoint(f"{variable} must be an http(s) URL with a host, got {base_url!r}")
    if url.scheme == "http" and not is_loopback(url.host):
        raise InsecureEndpoint(
            f"{variable} {base_url!r} is plain http to a host that is not loopback; "
            "the API key would travel in clear text. Use https."
        )
    if url.userinfo:
        raise InsecureEndpoint(f"{variable} must not carry a user name or password")
    return url


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date), None if absent or unreadable."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000" means UTC without saying so
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class ApiClient:
    """Sends `ApiRequest`s to one base URL with one key. Use as an async context manager."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout_s: float = 30.0,
        retry: RetryPolicy = RetryPolicy(),
        limiter: RateLimiter | None = None,
        on_retry: Callable[[TransientError], None] | None = None,
        budget: RequestBudget | None = None,
        api: ApiSpec = PERPLEXITY,
    ) -> None:
        self.api = api
        url = check_base_url(base_url, api.base_variable)
        if problem := key_problem(api_key, api.key_variable):
            raise InputError(problem)
        self.base_url = str(url).rstrip("/")
        self.host = url.host
        self.secret = Secret(api_key)
        self._headers = {"Authorization": f"Bearer {api_key}"}
        timeout = httpx.Timeout(timeout_s, connect=min(timeout_s, CONNECT_TIMEOUT_S))
        self._http = httpx.AsyncClient(transport=transport, timeout=timeout, follow_redirects=False)
        self.answered = False  # whether any response (of any status) has arrived
        self.connect_failures = 0  # attempts that could not connect before the first response
        self.retry = retry
        self.limiter = limiter or RateLimiter(0)
        self.on_retry = on_retry or (lambda error: None)
        self.budget = budget or RequestBudget()

    def __repr__(self) -> str:
        return f"ApiClient({self.base_url!r})"

    async def __aenter__(self) -> ApiClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._http.aclose()

    async def send(self, request: ApiRequest) -> Received:
        """POST the request; retry transient failures; return the JSON and the exchange's metadata."""
        for attempt in range(self.retry.retries + 1):
            try:
                return await self._attempt(request)
            except TransientError as error:
                if attempt == self.retry.retries:
                    raise self._redacted(error) from None
                self.on_retry(error)
                await asyncio.sleep(self.retry.wait(attempt, error.retry_after))
            except ApiError as error:
                raise self._redacted(error) from None
        raise AssertionError("unreachable")

    def _redacted(self, error: ApiError) -> ApiError:
        """The error with every form of the key blanked out of its message, in case a server echoed it back."""
        return self.secret.redacted(error)

    async def _attempt(self, request: ApiRequest) -> Received:
        self.budget.take()
        await self.limiter.wait()
        where = f"{self.host}{request.path}"
        started = time.perf_counter()
        try:
            response = await self._http.post(self.base_url + request.path, json=request.body, headers=self._headers)
        except (httpx.ConnectError, httpx.ConnectTimeout) as error:
            if not self.answered:
                self._not_answered(error)
            raise TransientError(f"{where}: connection failed ({type(error).__name__})") from None
        except httpx.TimeoutException:
            raise TransientError(f"{where}: timed out") from None
        except httpx.TransportError as error:
            raise TransientError(f"{where}: connection failed ({type(error).__name__})") from None
        elapsed = round(time.perf_counter() - started, 3)
        self.answered = True
        status = response.status_code
        if status in (401, 403):
            raise AuthError(
                f"{where} returned {status}: the API key in {self.api.key_variable} was refused. "
                "Check that it is current and active; nothing more was sent.",
                status=status,
            )
        if status in RETRY_STATUSES:
            raise TransientError(f"{where} returned {status}", status=status, retry_after=_retry_after(response))
        if status != 200:
            body = self.secret.redact(_unescaped(response.content))  # before the cut, which could leave half a key
            raise ApiError(f"{where} returned {status}: {body[:300]}", status=status)
        try:
            data = orjson.loads(response.content)  # strict JSON: NaN and Infinity are refused
        except orjson.JSONDecodeError:
            kind = response.headers.get("content-type", "unknown content type")
            raise ApiError(f"{where} returned 200 with a body that is not JSON ({kind})", status=status) from None
        self._refuse_unsaveable(request, where, response.content, data)
        evidence = "synthetic" if response.headers.get(EVIDENCE_HEADER) == "synthetic" else "live"
        request_id = self.secret.redact(response.headers.get("x-request-id", ""))  # saved in the entry
        return Received(data=data, status=status, request_id=request_id, elapsed_s=elapsed, received_at=_now(),
                        evidence=evidence)

    def _not_answered(self, error: httpx.TransportError) -> None:
        """Count a connect failure before the API ever answered; `Unreachable` at the `UNREACHABLE_AFTER`th: no
        more retries, one message for the whole recording."""
        self.connect_failures += 1
        if self.connect_failures < UNREACHABLE_AFTER:
            return
        why = "timed out" if isinstance(error, httpx.TimeoutException) else f"failed ({type(error).__name__})"
        raise Unreachable(f"cannot reach the API at {self.base_url}: {self.connect_failures} connection attempts "
                          f"{why} before any response. Check the network connection and {self.api.base_variable}, "
                          "or pass --offline to use only the responses already saved; nothing saved is lost, "
                          "rerun to resume")

    def _refuse_unsaveable(self, request: ApiRequest, where: str, raw: bytes, data: Any) -> None:
        """Raise unless the parsed body can be saved: nested no deeper than a cache entry can hold, and without
        the key in any form, neither in its bytes nor once its escapes are decoded."""
        try:
            decoded = orjson.dumps([data])  # one level down, as in a cache entry; the JSON escapes decoded
        except TypeError:  # orjson writes at most 254 levels: deeper than a cache entry can be written
            raise ApiError(f"{where} returned 200 with JSON nested deeper than a cache entry can hold (about 250 "
                           "levels); it was not saved", status=200) from None
        if self.secret.echoed_in(raw) or self.secret.echoed_in(decoded):
            raise KeyEchoed(f"{where}: the response to {describe(request)} echoes the API key it was sent with "
                            f"({self.api.key_variable}, in some encoding), so it was neither saved nor used. A server "
                            "or proxy that sends credentials back should not be given them: check "
                            f"{self.api.base_variable}", status=200)
