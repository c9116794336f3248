"""The research-evidence tool interface: base version and the generated versions.

Two changing drift operators have a natural target here, both on the claim the agent drafts:
the cited document's id (``add_claim.doc_id``: a display number becomes an internal key) and
the claim's stance (``add_claim.stance``: 'supports' and 'contradicts' swap meanings).
"""

from __future__ import annotations

from typing import Any

from drift import EnumMeaningChange, IdentifierSwap, InterfaceVersion, Tool, ToolSet

ENV_ID = "research"
STANCES = ("supports", "contradicts")
EFFECTFUL_TOOLS = ("add_claim", "submit_answer")
KEY_PIVOT = 9
"""Pivot of the document-key swap (display number n ↔ key 9 − n): the generator numbers each
collection's documents in pairs n, 9 − n, so a swapped id always names another document."""

_DOC_ID = {"type": "string", "description": "Document id, e.g. 'SRC-10001-3'."}


def _tool(
    name: str, title: str, description: str, props: dict[str, Any], required: list[str]
) -> Tool:
    schema = {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }
    return Tool(name=name, title=title, description=description, input_schema=schema)


def _reads() -> tuple[Tool, ...]:
    search = {
        "query": {"type": "string", "description": "Words to look for, e.g. a place name."},
        "include_superseded": {
            "type": "boolean",
            "default": False,
            "description": "Also search superseded editions. Defaults to false.",
        },
    }
    return (
        _tool(
            "search_documents",
            "Search documents",
            "Search the document collection. Returns the passages that contain the query's "
            "words, best first: each hit's document (its display number), title, passage "
            "number and text. Superseded editions are left out unless include_superseded is "
            "true.",
            search,
            ["query"],
        ),
        _tool(
            "read_document",
            "Read document",
            "Read one document: its id, title, publisher, year of publication, status "
            "('current' or 'superseded', and by which document) and numbered passages.",
            {"doc_id": _DOC_ID},
            ["doc_id"],
        ),
    )


def _answer_tools() -> tuple[Tool, ...]:
    claim = {
        "answer": {
            "type": "string",
            "description": "The answer the claim states: a figure ('41,200'), a year ('1931') "
            "or a publisher's name.",
        },
        "doc_id": {
            "type": "string",
            "description": "Id of the cited document, e.g. 'SRC-10001-3'.",
        },
        "quote": {
            "type": "string",
            "description": "The cited span, copied verbatim from one passage of the document.",
        },
        "stance": {
            "type": "string",
            "enum": list(STANCES),
            "description": "Whether the quoted passage supports or contradicts the statement in "
            "question: the answer itself, or the statement the task asks to check.",
        },
    }
    return (
        _tool(
            "add_claim",
            "Add claim",
            "Add a claim to the draft answer: the answer it states and the citation that backs "
            "it (a document and a span quoted from it). A claim without a citation is uncited.",
            claim,
            ["answer", "stance"],
        ),
        _tool(
            "submit_answer",
            "Submit answer",
            "Submit the draft answer for grading. Claims count only once submitted; nothing can "
            "be added afterwards.",
            {},
            [],
        ),
    )


def base_tools() -> ToolSet:
    """The canonical research tool set (version ``research@1``), in MCP form."""
    return ToolSet(tools=(*_reads(), *_answer_tools()))


def interface_versions() -> dict[str, InterfaceVersion]:
    """Every built-in research interface version, by id."""
    versions = [
        InterfaceVersion(id="research@1", env=ENV_ID, label="1"),
        InterfaceVersion(
            id="research@2-keys",
            env=ENV_ID,
            label="2",
            parent="research@1",
            ops=(
                IdentifierSwap(
                    tool="add_claim", field="doc_id", pivot=KEY_PIVOT, result_key="doc_id"
                ),
            ),
        ),
        InterfaceVersion(
            id="research@2-stance",
            env=ENV_ID,
            label="2",
            parent="research@1",
            ops=(
                EnumMeaningChange(tool="add_claim", field="stance", a="supports", b="contradicts"),
            ),
        ),
    ]
    return {v.id: v for v in versions}
