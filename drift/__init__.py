"""Versioned tool interfaces, drift operators and the drift classifier."""

from drift._operator import DriftClass, Operator
from drift._ops_core import RenameField, UnitChange
from drift._ops_enum import EnumMeaningChange, RenameEnumValues
from drift._ops_ids import IdentifierSwap, TimezoneChange
from drift._ops_nest import Flatten, Nest
from drift._ops_paging import OffsetToCursor, PageSizeChange
from drift._ops_shape import AddOptionalField, RenameTool, Reorder, RewordDescription
from drift._ops_values import DefaultFlip, FractionPercent, SignConvention
from drift._tools import Tool, ToolCall, ToolSet, load_tool_list, parse_tool_list
from drift._version import (
    OPERATOR_TYPES,
    AnyOperator,
    ChangelogEntry,
    InterfaceVersion,
    ServedInterface,
)
from drift.errors import DriftError, ToolCallError

__all__ = [
    "OPERATOR_TYPES",
    "AddOptionalField",
    "AnyOperator",
    "ChangelogEntry",
    "DefaultFlip",
    "DriftClass",
    "DriftError",
    "EnumMeaningChange",
    "Flatten",
    "FractionPercent",
    "IdentifierSwap",
    "InterfaceVersion",
    "Nest",
    "OffsetToCursor",
    "Operator",
    "PageSizeChange",
    "RenameEnumValues",
    "RenameField",
    "RenameTool",
    "Reorder",
    "RewordDescription",
    "ServedInterface",
    "SignConvention",
    "TimezoneChange",
    "Tool",
    "ToolCall",
    "ToolCallError",
    "ToolSet",
    "UnitChange",
    "load_tool_list",
    "parse_tool_list",
]
