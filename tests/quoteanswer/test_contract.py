"""What is read from a quote-answer response: a response that breaks what is read is refused (sources,
markers, passages quoted in order, counts), as are more passages than asked for."""

from __future__ import annotations

import pytest

from quotefinder.core.errors import ContractError
from quotefinder.quoteanswer import contract


def good_response() -> dict:
    return {"answer": "It is 10,984 m deep [1]\n\nThe Challenger Deep [2] is its floor [1]",
            "sources": [{"n": 1, "title": "Trench", "url": "https://a.example"},
                        {"n": 2, "title": "Deep", "url": "https://b.example"}],
            "passages": [{"source": 1, "text": "It is 10,984 m deep"}, {"source": 2, "text": "The Challenger Deep"},
                         {"source": 1, "text": "is its floor"}],
            "considered": 14, "pages_read": ["https://a.example"], "usage": {"answers": 1}, "message": ""}


@pytest.mark.parametrize(("edit", "problem"), [
    (lambda r: r["passages"].append({"source": 3, "text": "x"}), "passage 4 quotes source 3, which `sources` does"),
    (lambda r: r.update(answer=r["answer"] + " [7]"), r"cites \[7\], which resolves to no source"),
    (lambda r: r["sources"].append({"n": 1, "title": "t", "url": "u"}), "source 3 has `n` 1"),
    (lambda r: r.pop("considered"), "has no `considered`"),
    (lambda r: r["usage"].update(answers=-1), "not a count"),
    (lambda r: r.update(answer=None), "`answer` that is not text"),
    (lambda r: r["passages"][0].update(text=3), "passage 1 has a `text` that is not text"),
    (lambda r: r.update(pages_read="many"), "`pages_read` in the answer response is 'many', not a count"),
    (lambda r: r["passages"].append({"source": 1, "text": "not quoted"}), "passage 4 is not in the answer"),
    (lambda r: r["passages"].reverse(), "passage 2 is not in the answer"),  # out of order
    (lambda r: r["passages"][1].update(text=""), "passage 2 is empty"),
])
def test_a_response_that_breaks_what_is_read_is_refused(edit, problem) -> None:
    response = good_response()
    contract.read_answer(response)  # as sent, it holds together
    edit(response)
    with pytest.raises(ContractError, match=problem):
        contract.read_answer(response)


def test_more_passages_than_asked_are_refused() -> None:
    assert len(contract.read_answer(good_response(), 3).passages) == 3  # as many as asked
    with pytest.raises(ContractError, match="the answer carries 3 passages where 2 were asked for"):
        contract.read_answer(good_response(), 2)


def test_a_marker_outside_the_passages_must_resolve_even_when_a_passage_holds_its_digits() -> None:
    response = {"answer": "It is 9 [9]", "sources": [{"n": 1, "title": "t", "url": "https://a.example"}],
                "passages": [{"source": 1, "text": "9"}], "considered": 1, "pages_read": 1, "usage": {"answers": 1}}
    with pytest.raises(ContractError, match=r"cites \[9\], which resolves to no source"):
        contract.read_answer(response)  # the passage is the first 9, not the one inside the marker
    response["answer"] = "The answer [9]"
    with pytest.raises(ContractError, match="passage 1 is not in the answer"):
        contract.read_answer(response)  # a 9 only inside a marker is no quote of it


def test_a_bracketed_number_inside_a_quoted_passage_is_page_text_not_a_marker() -> None:
    response = good_response()
    response["passages"][0]["text"] = "It is 10,984 m deep[12]"
    response["answer"] = response["answer"].replace("It is 10,984 m deep", "It is 10,984 m deep[12]")
    assert contract.read_answer(response).passages[0] == (1, "It is 10,984 m deep[12]")
