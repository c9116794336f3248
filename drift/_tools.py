"""MCP tool definitions, tool sets and tool calls."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import jsonschema
import rfc8785
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from drift._files import capped_bytes, deeper_than
from drift.errors import DriftError

JSON = dict[str, Any]


class Tool(BaseModel):
    """One MCP tool definition. Reads and writes the MCP JSON form (``inputSchema``, ...).

    Unknown MCP keys (``annotations``, ``_meta``, ...) are kept so a round trip loses nothing.
    """

    model_config = ConfigDict(frozen=True, extra="allow", populate_by_name=True)

    name: str = Field(min_length=1, description="Tool name, unique within a tool set.")
    title: str | None = Field(default=None, description="Human-readable title.")
    description: str | None = Field(default=None, description="What the tool does.")
    input_schema: JSON = Field(alias="inputSchema", description="JSON Schema of the arguments.")
    output_schema: JSON | None = Field(
        default=None, alias="outputSchema", description="JSON Schema of the structured result."
    )

    def to_mcp(self) -> JSON:
        """The MCP JSON form of this tool."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

    def to_openai(self) -> JSON:
        """The OpenAI/litellm ``tools`` entry for this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description or "",
                "parameters": self.input_schema,
            },
        }

    def properties(self) -> dict[str, JSON]:
        """The top-level argument properties of the input schema."""
        props = self.input_schema.get("properties", {})
        return props if isinstance(props, dict) else {}


class ToolSet(BaseModel):
    """An ordered list of tools with unique names."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tools: tuple[Tool, ...] = Field(description="The tools, in served order.")

    def model_post_init(self, __context: Any) -> None:
        names = [t.name for t in self.tools]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise DriftError(
                f"duplicate tool names: {', '.join(dupes)}", "each tool name must appear once"
            )

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, or None."""
        return next((t for t in self.tools if t.name == name), None)

    def names(self) -> list[str]:
        """Tool names in served order."""
        return [t.name for t in self.tools]

    def to_mcp(self) -> list[JSON]:
        """The MCP JSON form (a list of tool definitions)."""
        return [t.to_mcp() for t in self.tools]

    def digest(self) -> str:
        """SHA-256 (hex) of the RFC 8785 canonical JSON of the served tool list."""
        return hashlib.sha256(rfc8785.dumps(self.to_mcp())).hexdigest()

    def replace(self, tool: Tool) -> ToolSet:
        """A copy with the tool of the same name replaced by ``tool``."""
        return ToolSet(tools=tuple(tool if t.name == tool.name else t for t in self.tools))


class ToolCall(BaseModel):
    """A call of one tool with JSON arguments."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="Tool name.")
    arguments: JSON = Field(default_factory=dict, description="Arguments as a JSON object.")

    def canonical(self) -> bytes:
        """RFC 8785 canonical JSON, for comparing calls by value."""
        return rfc8785.dumps({"name": self.name, "arguments": self.arguments})


def parse_tool_list(data: Any, source: str = "<data>") -> ToolSet:
    """Build a tool set from a bare JSON array of tools or an MCP ``tools/list`` result."""
    if isinstance(data, dict) and "tools" in data:
        data = data["tools"]
    if not isinstance(data, list):
        raise DriftError(
            f"{source}: expected a JSON array of tool definitions or an object with 'tools'",
            'pass a tools/list result ({"tools": [...]}) or a bare list of tools',
        )
    tools = []
    for i, item in enumerate(data):
        try:
            tools.append(Tool.model_validate(item))
        except ValidationError as e:
            first = e.errors()[0]
            loc = ".".join(str(p) for p in first["loc"])
            raise DriftError(
                f"{source}: tool #{i} is not a tool definition ({loc}: {first['msg']})",
                "each tool needs a 'name' and an 'inputSchema' object",
            ) from None
    for i, tool in enumerate(tools):
        _check_schemas(tool, f"{source}: tool #{i} ({tool.name!r})")
    try:
        return ToolSet(tools=tuple(tools))
    except DriftError as e:
        raise DriftError(f"{source}: {e}", e.hint) from None


def _check_schemas(tool: Tool, where: str) -> None:
    """A DriftError unless the tool's schemas are valid JSON Schema for an object."""
    for key, schema in (("inputSchema", tool.input_schema), ("outputSchema", tool.output_schema)):
        if schema is None:
            continue
        if schema.get("type", "object") != "object":
            raise DriftError(
                f"{where}: {key} must describe an object, not type {schema.get('type')!r}",
                'tool arguments are a JSON object: use {"type": "object", "properties": {...}}',
            )
        try:
            _check_schema(schema)
        except jsonschema.SchemaError as e:
            at = "/".join(str(p) for p in e.absolute_path) or "(root)"
            raise DriftError(
                f"{where}: {key} is not valid JSON Schema (at {at}: {e.message})",
                "fix the schema so it validates against its JSON Schema draft",
            ) from None


_VALID_SCHEMAS: dict[str, None] = {}
"""Schemas (as sorted-key JSON) already checked valid in this process: a run parses the same
few tool lists for every typed skill it loads, and a metaschema check costs milliseconds."""
_MAX_VALID_SCHEMAS = 4096


def _check_schema(schema: JSON) -> None:
    """``check_schema`` of the schema's JSON Schema draft (SchemaError if it is invalid),
    remembering schemas that passed."""
    try:
        key = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError):  # not plain JSON: checked, not remembered
        key = None
    if key is not None and key in _VALID_SCHEMAS:
        return
    jsonschema.validators.validator_for(schema).check_schema(schema)
    if key is not None:
        if len(_VALID_SCHEMAS) >= _MAX_VALID_SCHEMAS:
            _VALID_SCHEMAS.clear()
        _VALID_SCHEMAS[key] = None


MAX_JSON_BYTES = 16 * 1024 * 1024
"""Largest tool list or version file read."""

MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects accepted in a tool list or version file."""


def read_json_file(path: Path) -> Any:
    """The JSON value in the regular file ``path`` (at most :data:`MAX_JSON_BYTES` bytes,
    :data:`MAX_JSON_DEPTH` levels deep), or a DriftError (never a RecursionError)."""
    raw, problem = capped_bytes(path, MAX_JSON_BYTES)
    if problem is not None:
        raise DriftError(f"{path}: cannot read ({problem.removeprefix('is ')})", "pass a JSON file")
    try:
        data = json.loads(raw.decode("utf-8"))
    except json.JSONDecodeError as e:
        raise DriftError(
            f"{path}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})",
            "fix the JSON syntax",
        ) from None
    except (RecursionError, UnicodeDecodeError) as e:
        problem = "nested too deeply" if isinstance(e, RecursionError) else "not UTF-8 text"
        raise DriftError(f"{path}: not valid JSON ({problem})", "fix the JSON") from None
    if deeper_than(data, MAX_JSON_DEPTH):  # deep values overflow the recursive schema checks
        raise DriftError(f"{path}: nests deeper than {MAX_JSON_DEPTH} levels", "fix the JSON")
    return data


def load_tool_list(path: Path) -> ToolSet:
    """Read a tool list from a JSON file (see :func:`parse_tool_list`)."""
    return parse_tool_list(read_json_file(path), str(path))
