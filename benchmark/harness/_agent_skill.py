"""Agent Skills as the harness holds them: a ``SKILL.md`` and the other files of its folder.

A skill may carry a typed contract (declared tool interfaces, preconditions, permissions,
steps, codes, units, verifier) as JSON text under the ``vwt-contract`` key of its front
matter's ``metadata``: the format is extended only through ``metadata``, as it asks. The
skill runtime checks that contract against the served interface before the model sees it.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from benchmark.harness._skill_ir import TypedSkill
from benchmark.harness._skill_md import (
    FrontMatter,
    SkillFormatError,
    parse_skill_md,
    render_skill_md,
)

CONTRACT_KEY = "vwt-contract"
"""The ``metadata`` key whose value is the skill's typed contract, as JSON text."""
SCRIPTS_DIR = "scripts/"
"""Where a skill's runnable scripts are, relative to its folder."""
_FROM_FRONT = ("name", "description")


def _first_problem(e: ValidationError) -> str:
    err = e.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    msg = str(err["msg"]).removeprefix("Value error, ")
    return f"{loc}: {msg}" if loc else msg


def read_contract(front: FrontMatter) -> TypedSkill | None:
    """The typed contract in ``front``'s metadata, or None; SkillFormatError if it is not a
    valid contract (the message names the field and the rule)."""
    raw = front.metadata.get(CONTRACT_KEY)
    if raw is None:
        return None
    where = f"metadata {CONTRACT_KEY}"
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as e:
        raise SkillFormatError(f"{where} is not JSON ({e.msg}, line {e.lineno})") from None
    if not isinstance(data, dict):
        raise SkillFormatError(f"{where} must be a JSON object")
    given = [k for k in _FROM_FRONT if k in data]
    if given:
        raise SkillFormatError(
            f"{where} sets {', '.join(given)}: the contract takes them from the front matter"
        )
    try:
        return TypedSkill.model_validate(
            {"name": front.name, "description": front.description, **data}
        )
    except ValidationError as e:
        raise SkillFormatError(f"{where}: {_first_problem(e)}") from None


def contract_json(contract: TypedSkill) -> str:
    """The ``vwt-contract`` metadata value of ``contract``: the fields it sets or that differ
    from their defaults (a copy with updates sets nothing), but the two the front matter holds,
    as two-space indented JSON."""
    front = set(_FROM_FRONT)
    given = contract.model_dump(mode="json", exclude_unset=True, exclude=front)
    changed = contract.model_dump(mode="json", exclude_defaults=True, exclude=front).keys()
    full = contract.model_dump(mode="json", exclude=front)
    data = {k: given.get(k, v) for k, v in full.items() if k in given or k in changed}
    return json.dumps(data, indent=2, ensure_ascii=False)


class AgentSkill(BaseModel):
    """One Agent Skill: the text of its ``SKILL.md`` and of every other file in its folder."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    skill_md: str = Field(description="The SKILL.md text: front matter and body.")
    files: dict[str, str] = Field(
        default_factory=dict,
        description="Every other file of the folder: path relative to the folder → text.",
    )
    _front: FrontMatter = PrivateAttr()
    _body: str = PrivateAttr(default="")
    _contract: TypedSkill | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _parsed(self) -> AgentSkill:
        self._front, self._body = parse_skill_md(self.skill_md)
        self._contract = read_contract(self._front)
        return self

    @property
    def front(self) -> FrontMatter:
        """The front matter."""
        return self._front

    @property
    def name(self) -> str:
        """The skill's name."""
        return self._front.name

    @property
    def description(self) -> str:
        """What the skill does and when to use it (what the model chooses by)."""
        return self._front.description

    @property
    def body(self) -> str:
        """The Markdown body: what the model reads once it activates the skill."""
        return self._body

    @property
    def contract(self) -> TypedSkill | None:
        """The typed contract its metadata declares, if any."""
        return self._contract

    @property
    def scripts(self) -> list[str]:
        """Paths of its scripts (under ``scripts/``)."""
        return sorted(p for p in self.files if p.startswith(SCRIPTS_DIR))

    def applies_to(self, family: str) -> bool:
        """Whether the harness offers it in ``family``: always, unless its contract's triggers
        name other families."""
        return self._contract is None or self._contract.applies_to(family)

    def with_contract(self, contract: TypedSkill) -> AgentSkill:
        """This skill with ``contract`` as its metadata's contract (the body and files kept)."""
        metadata = {**self._front.metadata, CONTRACT_KEY: contract_json(contract)}
        front = self._front.model_copy(update={"metadata": metadata})
        # a new instance, not a copy: the parsed front matter and contract must be the new ones
        return AgentSkill(skill_md=render_skill_md(front, self._body), files=self.files)

    @classmethod
    def from_typed(cls, skill: TypedSkill, body: str = "") -> AgentSkill:
        """An old-IR typed skill as an Agent Skill whose contract it is; SkillFormatError when
        its name or description cannot be an Agent Skill's."""
        front = FrontMatter(name=skill.name, description=skill.description)
        text = render_skill_md(front, body)
        parse_skill_md(text)  # the name and description rules
        return cls(skill_md=text).with_contract(skill)
