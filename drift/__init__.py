"""Versioned tool interfaces, drift operators and the drift classifier."""

from drift._operator import DriftClass, Operator
from drift._ops_core import RenameField, UnitChange
from drift._tools import Tool, ToolCall, ToolSet, load_tool_list, parse_tool_list
from drift._version import AnyOperator, ChangelogEntry, InterfaceVersion, ServedInterface
from drift.errors import DriftError, ToolCallError

__all__ = [
    "AnyOperator",
    "ChangelogEntry",
    "DriftClass",
    "DriftError",
    "InterfaceVersion",
    "Operator",
    "RenameField",
    "ServedInterface",
    "Tool",
    "ToolCall",
    "ToolCallError",
    "ToolSet",
    "UnitChange",
    "load_tool_list",
    "parse_tool_list",
]
