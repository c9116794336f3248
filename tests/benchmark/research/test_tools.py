"""The research tools: search, read, draft claims and submit, in MCP form; the changing
versions state their change where the sim (and a careful reader) reads conventions."""

from __future__ import annotations

from benchmark.research import base_tools, interface_versions
from benchmark.research._tools import EFFECTFUL_TOOLS, STANCES
from drift import ServedInterface, read_convention

TOOLS = base_tools()


def test_the_interface_serves_reads_and_the_answer_tools_in_mcp_form() -> None:
    assert TOOLS.names() == ["search_documents", "read_document", "add_claim", "submit_answer"]
    assert EFFECTFUL_TOOLS == ("add_claim", "submit_answer")
    for tool in TOOLS.to_mcp():
        schema = tool["inputSchema"]
        assert schema["additionalProperties"] is False
        assert set(schema["required"]) <= set(schema["properties"])
    claim = next(t for t in TOOLS.tools if t.name == "add_claim").properties()
    assert claim["stance"]["enum"] == list(STANCES)
    assert set(claim) == {"answer", "doc_id", "quote", "stance"}


def test_the_changing_versions_state_the_new_reading_of_the_claims_fields() -> None:
    versions = interface_versions()
    assert set(versions) == {"research@1", "research@2-keys", "research@2-stance"}
    keys = ServedInterface(TOOLS, versions["research@2-keys"]).tools
    stance = ServedInterface(TOOLS, versions["research@2-stance"]).tools
    doc_id = next(t for t in keys.tools if t.name == "add_claim").properties()["doc_id"]
    said = read_convention("doc_id", doc_id)
    assert (said.takes, said.not_takes) == ("internal key", "display number")
    field = next(t for t in stance.tools if t.name == "add_claim").properties()["stance"]
    assert read_convention("stance", field).meanings == {
        "supports": "contradicts",
        "contradicts": "supports",
    }
    for version in versions.values():
        assert all(op.drift_class == "changing" for op in version.ops)
