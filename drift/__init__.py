"""Versioned tool interfaces, drift operators and the drift classifier."""

from drift._conventions import UNITS, Convention, convert, read_convention, read_stated, unit_in
from drift._diff import classify
from drift._files import (
    FolderProblem,
    capped_bytes,
    create_private_file,
    deeper_than,
    folder_digest,
    read_folder,
    write_atomic,
)
from drift._generate import (
    KINDS,
    GenerateConfig,
    OpSpec,
    VersionFile,
    generate,
    load_op_specs,
    load_version_file,
    parse_op_spec,
    read_base,
)
from drift._operator import DriftClass, Operator
from drift._ops_core import RenameField, UnitChange
from drift._ops_defaults import FormatDefault, NewDefaultParam
from drift._ops_enum import EnumMeaningChange, RenameEnumValues
from drift._ops_ids import IdentifierSwap, TimezoneChange
from drift._ops_nest import Flatten, Nest
from drift._ops_order import OrderCut
from drift._ops_paging import OffsetToCursor, PageSizeChange
from drift._ops_roles import RoleSwap
from drift._ops_shape import AddOptionalField, RenameTool, Reorder, RewordDescription
from drift._ops_silent import FilterSemantics, IndexBase
from drift._ops_values import DefaultFlip, FractionPercent, SignConvention
from drift._proxy import (
    DriftProxy,
    Observer,
    OldReading,
    ProxyCall,
    ServedFor,
    list_all_tools,
    run_stdio_proxy,
    tool_set_of,
    unwrapped,
)
from drift._report import REQUIRED_KINDS, Change, DiffReport
from drift._tools import Tool, ToolCall, ToolSet, load_tool_list, parse_tool_list
from drift._version import (
    OPERATOR_TYPES,
    AnyOperator,
    ChangelogEntry,
    InterfaceVersion,
    ServedInterface,
)
from drift._yardstick import (
    Half,
    RealPair,
    Score,
    find_yardstick,
    flagged,
    half_of,
    load_pairs,
    score,
)
from drift.errors import DriftError, ToolCallError

__all__ = [
    "KINDS",
    "OPERATOR_TYPES",
    "REQUIRED_KINDS",
    "UNITS",
    "AddOptionalField",
    "AnyOperator",
    "Change",
    "ChangelogEntry",
    "Convention",
    "DefaultFlip",
    "DiffReport",
    "DriftClass",
    "DriftError",
    "DriftProxy",
    "EnumMeaningChange",
    "FilterSemantics",
    "Flatten",
    "FolderProblem",
    "FormatDefault",
    "FractionPercent",
    "GenerateConfig",
    "Half",
    "IdentifierSwap",
    "IndexBase",
    "InterfaceVersion",
    "Nest",
    "NewDefaultParam",
    "Observer",
    "OffsetToCursor",
    "OldReading",
    "OpSpec",
    "Operator",
    "OrderCut",
    "PageSizeChange",
    "ProxyCall",
    "RealPair",
    "RenameEnumValues",
    "RenameField",
    "RenameTool",
    "Reorder",
    "RewordDescription",
    "RoleSwap",
    "Score",
    "ServedFor",
    "ServedInterface",
    "SignConvention",
    "TimezoneChange",
    "Tool",
    "ToolCall",
    "ToolCallError",
    "ToolSet",
    "UnitChange",
    "VersionFile",
    "capped_bytes",
    "classify",
    "convert",
    "create_private_file",
    "deeper_than",
    "find_yardstick",
    "flagged",
    "folder_digest",
    "generate",
    "half_of",
    "list_all_tools",
    "load_op_specs",
    "load_pairs",
    "load_tool_list",
    "load_version_file",
    "parse_op_spec",
    "parse_tool_list",
    "read_base",
    "read_convention",
    "read_folder",
    "read_stated",
    "run_stdio_proxy",
    "score",
    "tool_set_of",
    "unit_in",
    "unwrapped",
    "write_atomic",
]
