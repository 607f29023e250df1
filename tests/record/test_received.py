"""What a response is, apart from how it was fetched: a request in words, the two kinds of evidence, and that
reading a run never needs the HTTP client."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from conftest import ROOT
from quotefinder.core.perplexity import DECISIONS_PATH, SEARCH_PATH
from quotefinder.core.requests import ApiRequest
from quotefinder.record.received import EVIDENCE, Received, describe


def test_a_request_is_described_by_its_label_else_its_kind() -> None:
    assert describe(ApiRequest(SEARCH_PATH, {"query": "q"})) == "the search"
    assert describe(ApiRequest(DECISIONS_PATH, {})) == f"a request to {DECISIONS_PATH}"
    assert describe(ApiRequest(DECISIONS_PATH, {}, label="rank 2")) == "rank 2"


def test_evidence_is_live_or_synthetic_and_a_received_exchange_is_frozen() -> None:
    assert EVIDENCE == ("live", "synthetic")
    received = Received({"a": 1}, 200, "id", 0.1, "2026-01-01T00:00:00Z", "synthetic")
    with pytest.raises(dataclasses.FrozenInstanceError):
        received.status = 500  # type: ignore[misc]


def test_reading_a_response_loads_no_http_client() -> None:
    code = "import sys, quotefinder.record.received; print('httpx' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.stdout.strip() == "False", done.stderr
