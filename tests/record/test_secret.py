"""The API key's forms: blanked in everything saved or printed, looked for in every response body."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from conftest import TEN_SCENARIO
from hostile import ODD_KEY, key_forms
from quotefinder.core.errors import ApiError
from quotefinder.questions import Question
from quotefinder.recipe.config import RECIPE
from quotefinder.record.cache import ResponseCache
from quotefinder.record.received import Received
from quotefinder.record.recorder import QuestionRun, Recorder
from quotefinder.record.secret import MASK, Secret, key_problem, redact, secret_forms
from quotefinder.standin import FakeApi, load_scenario


def test_every_form_a_server_could_echo_is_listed_and_blanked() -> None:
    forms = secret_forms(ODD_KEY)
    assert set(key_forms(ODD_KEY)) <= set(forms)  # the test's own list, computed apart
    for form in key_forms(ODD_KEY):
        text = f"before {form} after {form.lower()}"
        assert redact(text, ODD_KEY) == f"before {MASK} after {MASK}", form
        assert Secret(ODD_KEY).echoed_in(f'{{"x": "{form}"}}'.encode()), form


def test_text_without_the_key_is_left_alone() -> None:
    secret = Secret(ODD_KEY)
    text = "pplx-Od and 9xQ are parts of it, not the key"
    assert secret.redact(text) == text and not secret.echoed_in(text.encode())
    assert Secret().redact(text) == text and not Secret().echoed_in(text.encode())
    assert "pplx" not in repr(secret)


def test_a_placeholder_key_is_blanked_exactly_and_never_refuses_a_body() -> None:
    secret = Secret("any")
    assert secret.redact("the key any, and many others") == f"the key {MASK}, and m{MASK} others"
    assert not secret.echoed_in(b"How many bones?")


def test_an_error_is_blanked_in_place() -> None:
    error = Secret(ODD_KEY).redacted(ApiError(f"returned 400: {json.dumps(ODD_KEY)}", status=400))
    assert str(error) == f'returned 400: "{MASK}"' and error.status == 400


@pytest.mark.parametrize("key", ["pplx-abc", "pplx-" + "x" * 48, ODD_KEY, "!~"])
def test_a_printable_ascii_key_is_accepted(key: str) -> None:
    assert key_problem(key) == ""


@pytest.mark.parametrize(("key", "what"), [("pplx-abcé", "a character that is not ASCII (character 9 of 9)"),
                                           ("pplx\n", "a line break (character 5 of 5)"),
                                           ("pp lx", "a space"), ("pp\x00lx", "a control character"),
                                           ("pp\u200blx", "not ASCII"), ("pp\rlx", "carriage return")])
def test_a_key_with_a_character_no_api_key_has_is_named_by_kind_and_place(key: str, what: str) -> None:
    problem = key_problem(key)
    assert problem.startswith("PERPLEXITY_API_KEY holds ") and what in problem and "nothing was sent" in problem
    assert key.strip() not in problem


def test_a_value_the_contract_check_quotes_is_blanked_in_the_question_error(tmp_path: Path) -> None:
    """A client that does not look for the key (any `Sender`): the contract error quoting the value the server
    put the key in still reaches run.json's errors blank."""
    api = FakeApi(load_scenario(TEN_SCENARIO))

    class Echoing:
        async def send(self, request) -> Received:
            status, payload = api.respond(request.path, json.dumps(request.body).encode(), ODD_KEY)
            if "best" in request.body.get("questions", {}):
                payload["answers"]["best"]["choice"] = ODD_KEY
            return Received(payload, status, "id", 0.1, "2026-01-01T00:00:00.000000Z", "synthetic")

    recorder = Recorder(ResponseCache(tmp_path), {"has_answer": [(0.0, 1.0)]})
    item = QuestionRun(Question("bones", "How many bones are in the adult human body?", "answer"))
    asyncio.run(recorder.record([item], Echoing(), 1, secret=Secret(ODD_KEY)))
    assert item.error is not None and "not one of the numbered sentences" in item.error and MASK in item.error
    assert not [form for form in key_forms(ODD_KEY) if form in item.error]


@pytest.mark.parametrize("prefix", ['{"Authorization": "Bearer ', "x", "xy", "xyz", "Bearer ", ""])
@pytest.mark.parametrize("suffix", ['"}', "", "q"])
def test_the_key_base64_encoded_inside_a_longer_text_is_found_whatever_its_offset(prefix: str, suffix: str) -> None:
    """A proxy that echoes a whole header or JSON document base64-encoded puts the key's bytes at any of three
    offsets of the 3-byte groups: each is found (and blanked), built here independently of `secret_forms`."""
    import base64

    secret = Secret(ODD_KEY)
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        blob = encode((prefix + ODD_KEY + suffix).encode()).decode()
        assert secret.echoed_in(json.dumps({"trace": blob}).encode())
        assert MASK in secret.redact(f"request id {blob}")


@pytest.mark.parametrize("prefix", ['{"Authorization": "Bearer ', "x", "xy", "", "Bearer "])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_the_key_in_line_wrapped_base64_is_found_wherever_the_lines_break(prefix: str, newline: str) -> None:
    """MIME base64 (`base64.encodebytes`: a line break every 76 characters), of a text holding the key at any offset,
    and with the lines broken at every place inside the key's encoding, raw or inside a JSON string (an escaped
    `\\n`): found and blanked. Built here with the standard library, apart from `secret_forms`."""
    import base64

    secret = Secret(ODD_KEY)
    text = (prefix + ODD_KEY + '"}').encode()
    wrapped = base64.encodebytes(b"p" * 50 + text).decode().replace("\n", newline)
    assert secret.echoed_in(wrapped.encode()) and secret.echoed_in(json.dumps({"trace": wrapped}).encode())
    assert MASK in secret.redact(wrapped) and ODD_KEY not in secret.redact(wrapped)
    plain = base64.b64encode(text).decode()
    for cut in range(1, len(plain)):
        broken = plain[:cut] + newline + plain[cut:]
        assert secret.echoed_in(broken.encode()) and secret.echoed_in(json.dumps(broken).encode()), cut
        assert MASK in secret.redact(broken), cut


@pytest.mark.parametrize("case", [str.lower, str.upper])
def test_the_key_in_hex_is_found_in_either_case_and_wrapped(case) -> None:
    secret = Secret(ODD_KEY)
    for text in (ODD_KEY, f"Bearer {ODD_KEY}", f'{{"Authorization": "Bearer {ODD_KEY}"}}'):
        encoded = case(text.encode().hex())
        assert secret.echoed_in(f"trace={encoded}".encode()) and MASK in secret.redact(encoded)
        wrapped = "\n".join(encoded[i : i + 32] for i in range(0, len(encoded), 32))
        assert secret.echoed_in(wrapped.encode()) and MASK in secret.redact(wrapped)


def test_a_4xx_body_with_the_key_escaped_character_by_character_is_blanked() -> None:
    import httpx

    from quotefinder.record.client import ApiClient

    escaped = "".join(f"\\u{ord(c):04x}" for c in ODD_KEY)

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, content=f'{{"error": "bad key {escaped}"}}'.encode(),
                              headers={"content-type": "application/json"})

    async def send() -> str:
        async with ApiClient("https://api.example", ODD_KEY, transport=httpx.MockTransport(handler)) as client:
            try:
                await client.send(RECIPE.search_request("How deep is the Mariana Trench?"))
            except ApiError as error:
                return str(error)
        return ""

    message = asyncio.run(send())
    assert "returned 400" in message and MASK in message and ODD_KEY not in message and escaped not in message


def test_a_key_that_is_not_even_valid_text_gives_no_traceback() -> None:
    """A key read from bytes that are not UTF-8 (a lone surrogate in Python): refused by `key_problem`, and
    building its forms never raises."""
    key = "pplx-abc\udce9defghijk"
    assert key_problem(key) and secret_forms(key) == (key,)
    assert Secret(key).redact(f"x {key} y") == f"x {MASK} y"


LONG_KEY = "pplx-" + "Ab3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5hJ7kL9mN1pQ"  # as long as a real key


@pytest.mark.parametrize("echo", [
    pytest.param(lambda key: key[:-2], id="cut short by two"),
    pytest.param(lambda key: key[2:], id="missing its start"),
    pytest.param(lambda key: key[10:26], id="any 16 in a row"),
    pytest.param(lambda key: ":".join(f"{b:02x}" for b in key.encode()), id="hex byte by byte"),
    pytest.param(lambda key: " ".join(key.encode().hex()[i : i + 8] for i in range(0, 2 * len(key), 8)),
                 id="hex in groups"),
    pytest.param(lambda key: "\t".join(__import__("base64").b64encode(key.encode()).decode()[i : i + 4]
                                       for i in range(0, 72, 4)), id="base64 in groups"),
    pytest.param(lambda key: key[:30] + "=\r\n" + key[30:], id="quoted-printable soft break"),
])
def test_more_forms_of_the_key_are_found_and_blanked(echo) -> None:
    secret = Secret(LONG_KEY)
    form = echo(LONG_KEY)
    assert secret.echoed_in(json.dumps({"trace": form}).encode()) and secret.echoed_in(form.encode())
    blanked = secret.redact(f"before {form} after")
    assert blanked.startswith("before ") and blanked.endswith(" after") and MASK in blanked
    assert LONG_KEY[5:20] not in blanked


def test_a_short_run_of_the_key_s_characters_is_left_alone() -> None:
    secret = Secret(LONG_KEY)
    text = f"{LONG_KEY[:15]} and {LONG_KEY[20:35]} are shorter than a run"
    assert secret.redact(text) == text and not secret.echoed_in(text.encode())
