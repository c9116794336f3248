"""The relevance rule of a harness exposing only the tools relevant to a task."""

from typing import Any

from benchmark import family
from benchmark.harness._relevance import KEPT_TOOLS, relevant_tools, scores, words

FAMILY = family("support_ops")
TOOLS = [t.to_openai() for t in FAMILY.base_tools().tools]
REFUND = (
    "Ticket TCK-1: Ada Quinn <ada.quinn12@example.com> was charged twice for order ORD-1-2. "
    "Refund the duplicate charge of $12.00 and close the ticket."
)
GIVE_BACK = (
    "Ada Quinn complains on ticket TCK-1 that order ORD-1-3 was delivered days late. Give back "
    "the shipping charge and close the ticket."
)


def _names(tools: list[dict[str, Any]]) -> list[str]:
    return [t["function"]["name"] for t in tools]


def _tool(name: str, description: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description}}


def test_words_split_tool_names_and_read_an_email_address_as_email() -> None:
    assert words("issue_refund") == {"issue", "refund"}
    assert words("Write to ada.quinn12@example.com and the team") == {"write", "email", "team"}


def test_a_name_word_outweighs_a_description_word_and_a_rare_word_a_common_one() -> None:
    tools = [
        _tool("refund", "Money back to a customer."),
        _tool("pay", "Send a refund."),
        _tool("note", "Customer note."),
        _tool("mail", "Customer mail."),
    ]
    by_name, by_description, common, _ = scores(tools, "refund the customer")
    assert by_name > by_description > common > 0


def test_a_refund_request_keeps_its_tools_and_drops_the_others() -> None:
    kept = _names(relevant_tools(TOOLS, REFUND, ""))
    assert len(kept) == KEPT_TOOLS < len(TOOLS)
    assert {"issue_refund", "close_ticket", "get_order"} <= set(kept)
    assert "set_discount" not in kept
    assert kept == [n for n in _names(TOOLS) if n in kept]  # served order


def test_a_tool_an_artifact_names_is_kept_and_a_request_that_never_names_it_loses_it() -> None:
    assert "issue_refund" not in _names(relevant_tools(TOOLS, GIVE_BACK, ""))
    recipe = '<recipe name="p">\nCall issue_refund with the shipping fee.\n</recipe>'
    kept = _names(relevant_tools(TOOLS, GIVE_BACK, recipe))
    assert "issue_refund" in kept and len(kept) == KEPT_TOOLS + 1
    # a name inside another word is not a mention
    assert "issue_refund" not in _names(relevant_tools(TOOLS, GIVE_BACK, "reissue_refunds"))
