"""``SKILL.md``, the Agent Skills format (agentskills.io/specification): YAML front matter, then a
Markdown body for the model.

The front matter holds ``name`` and ``description`` (required) and optionally ``license``,
``compatibility``, ``allowed-tools`` and ``metadata`` (a map of string keys to string values),
and nothing else. It is parsed as YAML without aliases (an alias can make a small file expand
into a huge value) and without tags beyond YAML's plain types.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

SKILL_FILE = "SKILL.md"
"""The file every skill folder holds."""
MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
MAX_COMPATIBILITY_CHARS = 500
FIELDS = ("name", "description", "license", "compatibility", "allowed-tools", "metadata")
"""The front-matter fields the format allows, in the order they are written."""

_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_FENCE = "---"


class SkillFormatError(ValueError):
    """A ``SKILL.md`` breaks a rule of the format; the message names the rule."""


class FrontMatter(BaseModel):
    """The validated front matter of a ``SKILL.md``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="The skill's name: the name of its folder too.")
    description: str = Field(description="What the skill does and when to use it.")
    license: str | None = Field(default=None, description="A license name or a bundled file.")
    compatibility: str | None = Field(default=None, description="Environment requirements.")
    allowed_tools: str | None = Field(
        default=None, description="``allowed-tools``: space-separated pre-approved tools."
    )
    metadata: dict[str, str] = Field(
        default_factory=dict, description="Further properties, string to string."
    )


def check_name(name: str) -> str:
    """``name`` if it is a valid skill name, else SkillFormatError saying the rule."""
    if not _NAME.fullmatch(name) or len(name) > MAX_NAME_CHARS:
        raise SkillFormatError(
            f"name {name!r} must be 1-{MAX_NAME_CHARS} lower-case letters, digits and hyphens, "
            "not starting or ending with a hyphen, without '--'"
        )
    return name


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader where PyYAML has it (ten times faster: bundles are parsed often)."""


def _no_aliases(text: str) -> None:
    """Refuse anchors and aliases before anything is built from the YAML."""
    for event in yaml.parse(text, Loader=_LOADER):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise SkillFormatError("front matter must not use YAML anchors or aliases")


def _yaml(text: str) -> Any:
    try:
        _no_aliases(text)
        return yaml.load(text, Loader=_LOADER)  # a safe loader, see _LOADER
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 2}: " if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise SkillFormatError(f"front matter is not valid YAML ({where}{problem})") from None


def _split(text: str) -> tuple[str, str]:
    """(front matter, body) of ``text``: the front matter lies between a first line ``---`` and
    the next line that is ``---``."""
    lines = text.split("\n")
    if lines[0].rstrip() != _FENCE:
        raise SkillFormatError(f"must start with YAML front matter: a first line '{_FENCE}'")
    end = next((i for i, line in enumerate(lines[1:], 1) if line.rstrip() == _FENCE), None)
    if end is None:
        raise SkillFormatError(f"front matter is not closed by a line '{_FENCE}'")
    return "\n".join(lines[1:end]), "\n".join(lines[end + 1 :])


def _string(data: dict[str, Any], key: str, limit: int | None = None) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise SkillFormatError(f"{key} must be a non-empty string")
    if limit is not None and len(value) > limit:
        raise SkillFormatError(f"{key} is {len(value)} characters, over the limit of {limit}")
    return value


def _metadata(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SkillFormatError("metadata must be a map of string keys to string values")
    out = {}
    for k, v in value.items():
        # numbers and booleans read as their text, as the reference parser (skills-ref) does
        if not isinstance(k, str) or isinstance(v, dict | list) or v is None:
            raise SkillFormatError(f"metadata {str(k)!r} must be a string key with a string value")
        out[k] = v if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v)
    return out


def parse_skill_md(text: str) -> tuple[FrontMatter, str]:
    """The front matter and the body of the ``SKILL.md`` text ``text``.

    SkillFormatError names the first rule ``text`` breaks: no front matter, YAML that does
    not parse or is not a mapping, a field the format does not have, a missing or overlong
    ``name`` or ``description``, a name of other characters, ``metadata`` that is not a map
    of strings.
    """
    front, body = _split(text)
    data = _yaml(front)
    if not isinstance(data, dict):
        raise SkillFormatError("front matter must be a YAML mapping of fields")
    unknown = sorted(str(k) for k in data if k not in FIELDS)
    if unknown:
        raise SkillFormatError(
            f"front matter has a field the format does not: {', '.join(unknown)} (fields: "
            f"{', '.join(FIELDS)}; put anything else under metadata)"
        )
    for required in ("name", "description"):
        if required not in data:
            raise SkillFormatError(f"front matter has no {required}")
    name = _string(data, "name")
    assert name is not None
    parsed = FrontMatter(
        name=check_name(name),
        description=str(_string(data, "description", MAX_DESCRIPTION_CHARS)),
        license=_string(data, "license"),
        compatibility=_string(data, "compatibility", MAX_COMPATIBILITY_CHARS),
        allowed_tools=_string(data, "allowed-tools"),
        metadata=_metadata(data.get("metadata")),
    )
    return parsed, body


class _Dumper(yaml.SafeDumper):
    """Writes multi-line strings as literal blocks, so a JSON value stays readable."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def render_skill_md(front: FrontMatter, body: str) -> str:
    """``SKILL.md`` text of ``front`` and ``body`` (what :func:`parse_skill_md` reads back)."""
    data: dict[str, Any] = {
        "name": front.name,
        "description": front.description,
        "license": front.license,
        "compatibility": front.compatibility,
        "allowed-tools": front.allowed_tools,
        "metadata": dict(front.metadata) or None,
    }
    fields = {k: v for k, v in data.items() if v is not None}
    head = yaml.dump(fields, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return f"{_FENCE}\n{head}{_FENCE}\n{body}"
