"""Interface versions: a base tool set plus an ordered list of drift operators."""

from __future__ import annotations

import functools
from typing import Annotated, Any

import jsonschema
from pydantic import BaseModel, ConfigDict, Field

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
from drift._tools import ToolCall, ToolSet
from drift.errors import ToolCallError

OPERATOR_TYPES = (
    RenameField,
    RenameTool,
    Reorder,
    AddOptionalField,
    OffsetToCursor,
    PageSizeChange,
    RewordDescription,
    Nest,
    Flatten,
    RenameEnumValues,
    UnitChange,
    DefaultFlip,
    SignConvention,
    FractionPercent,
    EnumMeaningChange,
    TimezoneChange,
    IdentifierSwap,
    NewDefaultParam,
    RoleSwap,
    OrderCut,
    IndexBase,
    FilterSemantics,
    FormatDefault,
)
"""Every operator class, preserving ones first; the six modelled on real releases last."""

AnyOperator = Annotated[
    RenameField
    | RenameTool
    | Reorder
    | AddOptionalField
    | OffsetToCursor
    | PageSizeChange
    | RewordDescription
    | Nest
    | Flatten
    | RenameEnumValues
    | UnitChange
    | DefaultFlip
    | SignConvention
    | FractionPercent
    | EnumMeaningChange
    | TimezoneChange
    | IdentifierSwap
    | NewDefaultParam
    | RoleSwap
    | OrderCut
    | IndexBase
    | FilterSemantics
    | FormatDefault,
    Field(discriminator="op"),
]
"""Every operator, discriminated by its ``op`` field."""


class ChangelogEntry(BaseModel):
    """One machine-readable changelog line of a generated version."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    op: str = Field(description="Operator kind.")
    drift_class: str = Field(description="'preserving' or 'changing'.")
    summary: str = Field(description="Human-readable description of the change.")
    params: dict[str, Any] = Field(description="The operator's parameters.")


class InterfaceVersion(BaseModel):
    """A tool-interface version of one environment: base tool set + ordered drift operators.

    ``label`` is what the server announces. Declared drift changes the label; undeclared drift
    keeps the parent's label while the schema digest changes.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = Field(default=1, description="Format version of this record.")
    id: str = Field(description="Version id, unique across the catalogue, e.g. 'support-ops@2'.")
    env: str = Field(description="Environment id this interface belongs to.")
    label: str = Field(description="Version label the server announces.")
    parent: str | None = Field(default=None, description="Id of the version this derives from.")
    ops: tuple[AnyOperator, ...] = Field(default=(), description="Operators applied to the base.")
    seed: int | None = Field(default=None, description="Seed the operators were drawn with.")

    def changelog(self) -> list[ChangelogEntry]:
        """What changed relative to the base, one entry per operator."""
        return [
            ChangelogEntry(
                op=o.op,
                drift_class=o.drift_class,
                summary=o.describe(),
                params=o.model_dump(mode="json", exclude={"op"}),
            )
            for o in self.ops
        ]

    def changing(self) -> bool:
        """Whether any operator changes semantics."""
        return any(o.drift_class == "changing" for o in self.ops)


class ServedInterface:
    """An interface version made concrete over a base tool set: what an environment serves."""

    def __init__(self, base: ToolSet, version: InterfaceVersion) -> None:
        self.version = version
        layers = [base]
        for op in version.ops:
            layers.append(op.apply(layers[-1]))
        self._layers = layers
        self.tools: ToolSet = layers[-1]
        self.digest: str = self.tools.digest()

    @functools.cached_property
    def _validators(self) -> dict[str, jsonschema.protocols.Validator]:
        out = {}
        for t in self.tools.tools:
            cls = jsonschema.validators.validator_for(t.input_schema)
            out[t.name] = cls(t.input_schema)
        return out

    def validate(self, call: ToolCall) -> None:
        """Raise ToolCallError if the served interface rejects ``call``."""
        validator = self._validators.get(call.name)
        if validator is None:
            raise ToolCallError(
                f"unknown tool {call.name!r}; available: {', '.join(self.tools.names())}"
            )
        errors = sorted(validator.iter_errors(call.arguments), key=lambda e: list(e.path))
        if errors:
            # every problem at once, so an agent can fix its call in one retry
            found = "; ".join(e.message for e in errors[:5])
            raise ToolCallError(f"invalid arguments for {call.name!r}: {found}")

    def chain(self, call: ToolCall) -> list[ToolCall]:
        """The call at every layer, served first, canonical last."""
        calls = [call]
        for op in reversed(self.version.ops):
            calls.append(op.call_to_prev(calls[-1]))
        return calls

    def to_canonical(self, call: ToolCall) -> ToolCall:
        """The canonical backend call that a served-interface call means."""
        return self.chain(call)[-1]

    def from_canonical(self, call: ToolCall) -> ToolCall:
        """The served-interface call that means the canonical backend call ``call``."""
        for op in self.version.ops:
            call = op.call_to_new(call)
        return call

    def result_to_served(self, chain: list[ToolCall], result: Any) -> Any:
        """Map a canonical result into the served form, given the call ``chain``."""
        n = len(self.version.ops)
        for i, op in enumerate(self.version.ops):
            result = op.result_to_new(chain[n - i], result)
        return result

    def old_readings(self, call: ToolCall) -> list[tuple[int, ToolCall]]:
        """Canonical calls an agent meant if it used a changing operator's old semantics.

        One entry per changing operator whose old reading applies: (operator index, call).
        """
        ops = self.version.ops
        out = []
        for i, op in enumerate(ops):
            if op.drift_class != "changing":
                continue
            current = call
            for later in reversed(ops[i + 1 :]):
                current = later.call_to_prev(current)
            misread = op.old_reading(current)
            if misread is None:
                continue
            for earlier in reversed(ops[:i]):
                misread = earlier.call_to_prev(misread)
            out.append((i, misread))
        return out
