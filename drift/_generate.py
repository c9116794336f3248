"""Generating a labelled interface version from a base tool list and operator specs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from drift._operator import Operator
from drift._tools import JSON, ToolSet, parse_tool_list, read_json_file
from drift._version import OPERATOR_TYPES, ChangelogEntry, InterfaceVersion, ServedInterface
from drift.errors import DriftError

KINDS: dict[str, type[Operator]] = {cls.model_fields["op"].default: cls for cls in OPERATOR_TYPES}
"""Operator class by its ``op`` name."""


class OpSpec(BaseModel):
    """An operator request: a kind plus the parameters fixed by the user (the rest is drawn)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str = Field(description="Operator kind, e.g. 'rename_field'.")
    params: dict[str, Any] = Field(default_factory=dict, description="Fixed parameters.")


def _split(text: str) -> list[str]:
    """Split ``text`` on commas outside brackets and quotes."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p for p in parts if p.strip()]


def _value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def parse_op_spec(text: str) -> OpSpec:
    """Parse ``kind:key=value,...`` (values are JSON where they parse, else strings)."""
    kind, _, rest = text.partition(":")
    kind = kind.strip()
    if kind not in KINDS:
        raise DriftError(
            f"unknown operator kind {kind!r} in {text!r}", f"kinds: {', '.join(KINDS)}"
        )
    params = {}
    for item in _split(rest):
        key, eq, raw = item.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_]\w*", key.strip()):
            raise DriftError(f"bad operator parameter {item!r} in {text!r}", "write key=value")
        params[key.strip()] = _value(raw.strip())
    return OpSpec(kind=kind, params=params)


def load_op_specs(path: Path) -> list[OpSpec]:
    """Operator specs from a JSON file: a list of objects with ``op`` plus parameters."""
    data = read_json_file(path)
    if not isinstance(data, list) or not all(isinstance(d, dict) and "op" in d for d in data):
        raise DriftError(f"{path}: expected a JSON list of objects with an 'op' key")
    specs = []
    for item in data:
        params = {k: v for k, v in item.items() if k != "op"}
        if item["op"] not in KINDS:
            raise DriftError(
                f"{path}: unknown operator kind {item['op']!r}", f"kinds: {', '.join(KINDS)}"
            )
        specs.append(OpSpec(kind=item["op"], params=params))
    return specs


def _build(spec: OpSpec, tools: ToolSet, rng: np.random.Generator) -> tuple[Operator, ToolSet]:
    cls = KINDS[spec.kind]
    required = {n for n, f in cls.model_fields.items() if f.is_required()}
    try:
        if required <= set(spec.params):
            op = cls.model_validate(spec.params)
        else:
            op = cls.draw(tools, rng, spec.params)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise DriftError(f"{spec.kind}: bad parameter {where}: {first['msg']}") from None
    return op, op.apply(tools)


def _draw_random(count: int, tools: ToolSet, rng: np.random.Generator) -> list[Operator]:
    """``count`` operators drawn from the kinds that apply, each kind at most once (kinds that
    need what no schema shows are applied by name only)."""
    out: list[Operator] = []
    kinds = [str(k) for k in rng.permutation([k for k, c in KINDS.items() if c.drawn])]
    for kind in kinds:
        if len(out) == count:
            break
        try:
            op, tools = _build(OpSpec(kind=kind), tools, rng)
        except DriftError:
            continue
        out.append(op)
    if len(out) < count:
        raise DriftError(
            f"only {len(out)} operator kinds apply to this tool list, {count} asked",
            f"use --random {len(out)} or fewer",
        )
    return out


class VersionFile(BaseModel):
    """A generated interface version as written to disk: the version, its tools and changelog.

    The top-level ``tools`` list makes the file a valid tool list for ``vwt drift diff``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = Field(default=1, description="Format version of this file.")
    version: InterfaceVersion = Field(description="The version: base id, label, operators, seed.")
    base: list[JSON] = Field(description="The base tool list the operators apply to (MCP form).")
    tools: list[JSON] = Field(description="The materialized tool list this version serves.")
    digest: str = Field(description="SHA-256 of the canonical JSON of ``tools``.")
    changelog: list[ChangelogEntry] = Field(description="One entry per operator, in order.")

    def served(self) -> ServedInterface:
        """The version made concrete over its base."""
        return ServedInterface(parse_tool_list(self.base, "base"), self.version)


class GenerateConfig(BaseModel):
    """What ``vwt drift generate`` asks for."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ops: list[OpSpec] = Field(default_factory=list, description="Operators asked for, in order.")
    random: int = Field(default=0, ge=0, description="How many more operators to draw.")
    seed: int = Field(description="Seed for everything drawn.")
    env: str = Field(description="Environment id of the version.")
    label: str | None = Field(default=None, description="Version label; bumped when unset.")
    undeclared: bool = Field(default=False, description="Keep the parent's label.")
    id: str | None = Field(default=None, description="Version id; derived when unset.")


def _bump(label: str) -> str:
    match = re.search(r"(\d+)$", label)
    if match is None:
        return f"{label}.1"
    return f"{label[: match.start()]}{int(match.group(1)) + 1}"


def generate(
    config: GenerateConfig, base: ToolSet, parent: InterfaceVersion | None = None
) -> VersionFile:
    """A new version of ``base`` (after ``parent``'s operators, if any) with the asked drift."""
    rng = np.random.default_rng(config.seed)
    prior = tuple(parent.ops) if parent else ()
    tools = ServedInterface(base, parent).tools if parent else base
    ops: list[Operator] = []
    for spec in config.ops:
        op, tools = _build(spec, tools, rng)
        ops.append(op)
    if config.random:
        ops += _draw_random(config.random, tools, rng)
    if not ops:
        raise DriftError("no operators asked for", "pass --op KIND[:key=value,...] or --random N")
    parent_label = parent.label if parent else "1"
    label = parent_label if config.undeclared else (config.label or _bump(parent_label))
    version = InterfaceVersion(
        id=config.id or f"{config.env}@{label}",
        env=config.env,
        label=label,
        parent=parent.id if parent else f"{config.env}@{parent_label}",
        ops=(*prior, *ops),
        seed=config.seed,
    )
    served = ServedInterface(base, version)
    if config.undeclared and config.id is None:
        version = version.model_copy(update={"id": f"{version.id}~{served.digest[:8]}"})
    return VersionFile(
        version=version,
        base=base.to_mcp(),
        tools=served.tools.to_mcp(),
        digest=served.digest,
        changelog=version.changelog()[len(prior) :],
    )


def read_base(path: Path) -> tuple[ToolSet, InterfaceVersion | None]:
    """A base for generation: a tool list, or a version file (its base and version)."""
    data = read_json_file(path)
    if isinstance(data, dict) and "version" in data and "base" in data:
        vf = _version_file(data, path)
        return parse_tool_list(vf.base, f"{path} (base)"), vf.version
    return parse_tool_list(data, str(path)), None


def load_version_file(path: Path) -> VersionFile:
    """Read a version file written by ``vwt drift generate`` and check its digest."""
    vf = _version_file(read_json_file(path), path)
    listed = parse_tool_list(vf.tools, f"{path} (tools)").digest()
    if vf.served().digest != vf.digest or listed != vf.digest:
        raise DriftError(
            f"{path}: tools do not match the version's operators (digest differs)",
            "the file was edited by hand; generate it again",
        )
    return vf


def _version_file(data: Any, path: Path) -> VersionFile:
    try:
        return VersionFile.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise DriftError(
            f"{path}: not a version file ({where}: {first['msg']})",
            "pass a file written by 'vwt drift generate'",
        ) from None
