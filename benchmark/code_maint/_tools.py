"""The code-maintenance tool interface (``repo@1``) and its built-in changed versions.

The changing drift with a natural target here is ``replace_in_file.all_occurrences``: its
default flips from replacing every occurrence to only the first, so an agent that leaves the
flag out, as it always could, fixes one call site of several and leaves the rest broken (the
oracle flags the edit: its old reading is the reference edit). A preserving rename of the
edit's ``path`` field rides along.
"""

from __future__ import annotations

from typing import Any

from drift import DefaultFlip, InterfaceVersion, RenameField, Tool, ToolSet

ENV_ID = "repo"
LOOKUP_TOOLS = ("list_files", "read_file", "search", "read_changelog", "run_tests", "run_command")
EFFECTFUL_TOOLS = ("replace_in_file", "write_file")

_PATH = {
    "type": "string",
    "description": "File path relative to the project root, e.g. 'shopkit/pricing.py'.",
}


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


def _tool(name: str, title: str, description: str, schema: dict[str, Any]) -> Tool:
    return Tool(name=name, title=title, description=description, input_schema=schema)


def _lookups() -> tuple[Tool, ...]:
    return (
        _tool(
            "list_files",
            "List files",
            "List every file of the project, by path relative to the project root.",
            _obj({}, []),
        ),
        _tool(
            "read_file",
            "Read file",
            "Read one file of the project: its lines, numbered from 1.",
            _obj({"path": _PATH}, ["path"]),
        ),
        _tool(
            "search",
            "Search code",
            "Search every file of the project for lines containing a text (case-sensitive). "
            "Returns the first 200 hits (path, line number and the line) and how many more "
            "there are.",
            _obj({"query": {"type": "string", "description": "Text to find."}}, ["query"]),
        ),
        _tool(
            "read_changelog",
            "Read changelog",
            "Read the changelog of a dependency at the version requirements.txt pins: what "
            "changed, renamed or broke between versions, with migration notes.",
            _obj(
                {"package": {"type": "string", "description": "Dependency name, e.g. 'acmelib'."}},
                ["package"],
            ),
        ),
        _tool(
            "run_tests",
            "Run tests",
            "Run the project's unit tests (python3 -m unittest) with its pinned dependencies and "
            "check that every module compiles. Returns how many tests ran, passed, failed or were "
            "skipped, each failing test with its file and message, and compile errors.",
            _obj({}, []),
        ),
        _tool(
            "run_command",
            "Run command",
            "Run an allowed command in the project root with its pinned dependencies: "
            "'python3 -m unittest …' or 'python3 -m compileall …'. Returns the exit code and "
            "output.",
            _obj(
                {
                    "command": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "The command as a list of words, e.g. "
                        "['python3', '-m', 'unittest', '-v'].",
                    }
                },
                ["command"],
            ),
        ),
    )


def _replace() -> Tool:
    props = {
        "path": _PATH,
        "old": {
            "type": "string",
            "description": "Text to replace; matched as whole names (never inside a longer "
            "identifier).",
        },
        "new": {"type": "string", "description": "Replacement text."},
        "all_occurrences": {
            "type": "boolean",
            "description": "Replace every occurrence in the file, or only the first. Defaults "
            "to true.",
            "default": True,
        },
    }
    return _tool(
        "replace_in_file",
        "Replace in file",
        "Edit one file of the project: replace a text with another. Fails when the text does "
        "not occur in the file.",
        _obj(props, ["path", "old", "new"]),
    )


def _write() -> Tool:
    props = {"path": _PATH, "content": {"type": "string", "description": "The whole new content."}}
    return _tool(
        "write_file",
        "Write file",
        "Create a file of the project or overwrite it with new content.",
        _obj(props, ["path", "content"]),
    )


def base_tools() -> ToolSet:
    """The canonical code-maintenance tool set (version ``repo@1``), in MCP form."""
    return ToolSet(tools=(*_lookups(), _replace(), _write()))


def interface_versions() -> dict[str, InterfaceVersion]:
    """Every built-in interface version, by id: the base, a preserving rename and the flipped
    default of ``replace_in_file.all_occurrences``."""

    def changed(suffix: str, op: Any) -> InterfaceVersion:
        parent = f"{ENV_ID}@1"
        return InterfaceVersion(
            id=f"{ENV_ID}@2-{suffix}", env=ENV_ID, label="2", parent=parent, ops=(op,)
        )

    versions = [
        InterfaceVersion(id=f"{ENV_ID}@1", env=ENV_ID, label="1"),
        changed("rename", RenameField(tool="replace_in_file", field="path", new_name="file_path")),
        changed(
            "default",
            DefaultFlip(tool="replace_in_file", field="all_occurrences", old_default=True),
        ),
    ]
    return {v.id: v for v in versions}
