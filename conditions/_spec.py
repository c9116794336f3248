"""The cycle spec: what an operator decides before a release cycle, loaded from YAML or JSON."""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from datetime import datetime
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated, Any, Literal, Self

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from conditions._condition import Condition, ModelAxis, TaskFamilyAxis
from conditions._wire import (
    MAX_DEPTH,
    canonical,
    describe_errors,
    loads_json,
    sha256_hex,
)
from conditions.errors import ConditionsError
from drift import (
    DriftError,
    FolderProblem,
    InterfaceVersion,
    capped_bytes,
    folder_digest,
    load_version_file,
    read_folder,
)

_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


def _rfc3339(value: Any) -> Any:
    # YAML reads an unquoted timestamp as a datetime; keep it, as the RFC 3339 text it was.
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("must carry a time zone, e.g. 2026-12-01T00:00:00Z")
        value = value.isoformat().replace("+00:00", "Z")
    if not isinstance(value, str) or not _RFC3339.match(value):
        raise ValueError("must be an RFC 3339 time with a zone, e.g. 2026-12-01T00:00:00Z")
    return value


Rfc3339 = Annotated[str, BeforeValidator(_rfc3339)]
"""An RFC 3339 date-time string with an explicit zone."""


def parse_time(value: str) -> datetime:
    """The aware datetime of an RFC 3339 string."""
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


class _Spec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def _unique(items: list[Any], what: str) -> None:
    seen = [canonical(i.model_dump() if isinstance(i, BaseModel) else i) for i in items]
    if len(set(seen)) != len(seen):
        raise ValueError(f"{what} lists an entry twice")


class CatalogueModel(_Spec):
    """A model the cycle may use: its litellm string, version label and provider."""

    model: str = Field(min_length=1, description="litellm model string, e.g. 'sim/acme-3'.")
    version: str = Field(min_length=1, description="Version label, e.g. '3'.")
    provider: str = Field(min_length=1, description="Provider id, e.g. 'acme'.")

    def axis(self) -> ModelAxis:
        """This entry as the model axis of a condition."""
        return ModelAxis(model=self.model, version=self.version)


class Catalogue(_Spec):
    """The axis values target conditions are drawn from. Kept private until the reveal."""

    models: list[CatalogueModel] = Field(min_length=1, description="Models and their providers.")
    tool_interfaces: dict[str, list[str]] = Field(
        min_length=1, description="Tool-interface version ids available per environment id."
    )
    task_families: list[TaskFamilyAxis] = Field(
        min_length=1, description="Task families and splits."
    )
    harnesses: list[str] = Field(min_length=1, description="Harness version ids.")
    family_envs: dict[str, str] = Field(
        default_factory=dict,
        description="Task family id → the environment whose tool interface its tasks use. A "
        "target that changes only other environments' interfaces would repeat another "
        "condition's trials, so it is not generated.",
    )

    @model_validator(mode="after")
    def _no_duplicates(self) -> Self:
        _unique([m.model for m in self.models], "catalogue.models (by model string)")
        for env, versions in self.tool_interfaces.items():
            if not versions:
                raise ValueError(f"catalogue.tool_interfaces.{env} is empty")
            _unique(versions, f"catalogue.tool_interfaces.{env}")
        _unique(self.task_families, "catalogue.task_families")
        _unique(self.harnesses, "catalogue.harnesses")
        families = self.family_ids()
        for fam, env in self.family_envs.items():
            if fam not in families:
                raise ValueError(f"catalogue.family_envs names {fam!r}, not a catalogue family")
            if env not in self.tool_interfaces:
                raise ValueError(
                    f"catalogue.family_envs.{fam}: {env!r} is not in catalogue.tool_interfaces"
                )
        return self

    def family_ids(self) -> set[str]:
        """Every family id the catalogue's task-family entries use."""
        return {f for entry in self.task_families for f in entry.families}

    def digest(self) -> str:
        """SHA-256 (hex) of the catalogue's canonical JSON (without family_envs when empty, so
        catalogues written before it existed keep their digest)."""
        data = self.model_dump(mode="json")
        if not data["family_envs"]:
            del data["family_envs"]
        return sha256_hex(canonical(data))


class ModelEndpoint(_Spec):
    """Where one model of the cycle is served, when not where its provider's defaults say: e.g.
    each of two self-hosted models behind its own OpenAI-compatible server. Operational, not an
    axis: it changes no condition id, and the key itself never enters the spec."""

    api_base: str = Field(
        pattern=r"^https?://[^\s]+$",
        max_length=2048,
        description="Base URL the model's requests go to, e.g. http://10.0.0.5:8000/v1.",
    )
    api_key_env: str | None = Field(
        default=None,
        pattern=r"^[A-Z_][A-Z0-9_]{0,127}$",
        description="Environment variable holding the key for this endpoint (read where the "
        "trials run); none: the provider's usual variable, if any.",
    )


class FamilyFolder(_Spec):
    """A task family written as a folder (``family.yaml``, tasks as JSON lines, docs/
    folder-families.md), pinned by the digest of its content when the spec was loaded: a
    folder changed since is refused wherever the cycle uses it, and the digest is committed."""

    path: str = Field(
        min_length=1, pattern=r"^/", description="Absolute path of the family's folder."
    )
    digest: str = Field(
        pattern=r"^[0-9a-f]{64}$",
        description="SHA-256 of the folder's content (drift.folder_digest) when the spec was "
        "loaded.",
    )


class FamilyRoles(_Spec):
    """Which task families submissions are developed on and which only targets use.

    Public, and signed into the commitment: a held-out family is defined and documented before
    submissions open, but no submission is developed on it."""

    development: list[str] = Field(
        min_length=1, description="Families the source condition uses (development families)."
    )
    held_out: list[str] = Field(
        default_factory=list, description="Families only target conditions use."
    )
    folders: tuple[FamilyFolder, ...] = Field(
        default=(),
        description="Task families written as folders that the cycle uses besides the "
        "installed ones (in a file: each entry the folder's path, relative to the spec; loading "
        "the spec pins its digest). Their digests are committed.",
    )

    @model_validator(mode="after")
    def _disjoint(self) -> Self:
        _unique(self.development, "families.development")
        _unique(self.held_out, "families.held_out")
        both = sorted(set(self.development) & set(self.held_out))
        if both:
            raise ValueError(f"families {both} are both development and held out")
        return self


class Evaluation(_Spec):
    """How the evaluation runs and how its statistics are computed."""

    tasks_per_split: int = Field(ge=1, description="Task instances drawn per family split.")
    k: int = Field(ge=1, description="Trials per task instance and arm.")
    bootstrap: int | None = Field(
        default=None,
        ge=100,
        description="Unused: the matrix's statistics are closed-form since release format 6 "
        "(no bootstrap). Accepted so that older cycle specs still load.",
    )
    fdr_q: float = Field(gt=0, lt=1, description="Benjamini-Hochberg false discovery rate.")


class Adaptation(_Spec):
    """The metered budget each submission may spend adapting to one target."""

    budget_tokens: int = Field(ge=0, description="Model tokens (prompt + completion).")
    budget_calls: int = Field(ge=0, description="Model calls.")
    budget_seconds: int = Field(ge=0, description="Wall-clock seconds.")
    human_minutes: int = Field(ge=0, description="Declared human minutes allowed.")
    sample_tasks: int = Field(
        default=8,
        ge=1,
        description="Tasks of each target family's adaptation split an adaptation may read.",
    )


_SPEC_FOLDERS: dict[str, str] = {}


def spec_family_folders() -> dict[str, str]:
    """Path → pinned digest of the task family folders of every cycle spec made in this
    process (loaded from a file or from a cycle's record): ``benchmark`` finds the families
    a spec uses there, besides the installed ones."""
    return dict(_SPEC_FOLDERS)


PUBLIC_SEEDS = frozenset({20261201})
"""Cycle seeds vwt publishes: the embedded specs' (``vwt demo``'s). A cycle with one is refused
at commit unless a public cycle is meant (``Cycle.commit(public_seed=True)``)."""


def fresh_seed() -> int:
    """A new secret cycle seed: 52 random bits (exact in JSON numbers)."""
    return secrets.randbits(52)


class CycleSpec(_Spec):
    """Everything an operator fixes for one release cycle (YAML or JSON on disk)."""

    v: Literal[1] = Field(description="Format version of the cycle spec.")
    cycle: str = Field(
        pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$",
        description="Cycle id: lower-case letters, digits, '.', '_' or '-', at most 64.",
    )
    seed: int = Field(ge=0, description="Seed of everything random in the cycle but salts.")
    opens_at: Rfc3339 = Field(description="When submissions open (RFC 3339).")
    closes_at: Rfc3339 = Field(description="When submissions close (RFC 3339).")
    source: Condition = Field(description="The public condition submitters develop against.")
    catalogue: Catalogue = Field(description="Axis values for the hidden target conditions.")
    evaluation: Evaluation = Field(description="Evaluation and statistics settings.")
    adaptation: Adaptation = Field(description="Adaptation budget per submission and target.")
    families: FamilyRoles | None = Field(
        default=None,
        description="Development and held-out task families. Without it, the source's families "
        "are the development families and every other catalogue family is held out.",
    )
    interfaces: tuple[InterfaceVersion, ...] = Field(
        default=(),
        description="Tool-interface versions this cycle defines beyond the built-in ones, e.g. "
        "written by `vwt drift generate` (in a file, an entry may be the path of such a version "
        "file, relative to the spec). Catalogue ids may name them.",
    )

    endpoints: dict[str, ModelEndpoint] = Field(
        default_factory=dict,
        description="Per litellm model string of the catalogue: where its requests go and which "
        "environment variable holds its key, e.g. {'openai/qwen-7b': {api_base: "
        "'http://gpu1:8000/v1', api_key_env: 'GPU1_KEY'}}.",
    )

    def model_post_init(self, __context: Any) -> None:
        for folder in self.families.folders if self.families is not None else ():
            _SPEC_FOLDERS[folder.path] = folder.digest

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if parse_time(self.closes_at) <= parse_time(self.opens_at):
            raise ValueError("closes_at must be later than opens_at")
        cat, src = self.catalogue, self.source
        if (src.model.model, src.model.version, src.provider) not in {
            (m.model, m.version, m.provider) for m in cat.models
        }:
            raise ValueError("source model, version and provider must be a catalogue.models entry")
        if set(src.tool_interface) != set(cat.tool_interfaces):
            raise ValueError("source.tool_interface must name exactly the catalogue's environments")
        for env, version in src.tool_interface.items():
            if version not in cat.tool_interfaces[env]:
                raise ValueError(f"source tool interface {version!r} is not in catalogue.{env}")
        if src.task_family not in cat.task_families:
            raise ValueError("source.task_family must be in catalogue.task_families")
        if self.families is not None:
            roles = self.families
            if set(roles.development) != set(src.task_family.families):
                raise ValueError(
                    "families.development must be exactly the source's task families "
                    f"({', '.join(src.task_family.families)})"
                )
            unnamed = sorted(cat.family_ids() - {*roles.development, *roles.held_out})
            if unnamed:
                raise ValueError(
                    f"catalogue families {unnamed} are neither development nor held out: "
                    "add them to families.held_out"
                )
        if src.harness not in cat.harnesses:
            raise ValueError("source.harness must be in catalogue.harnesses")
        unknown = sorted(set(self.endpoints) - {m.model for m in cat.models})
        if unknown:
            raise ValueError(f"endpoints names {unknown}, not models of catalogue.models")
        _unique([v.id for v in self.interfaces], "interfaces (by id)")
        for v in self.interfaces:
            if v.env not in cat.tool_interfaces:
                raise ValueError(f"interface {v.id!r}: {v.env!r} is not a catalogue environment")
        return self

    @property
    def family_roles(self) -> FamilyRoles:
        """The declared family roles, or those the source and catalogue imply."""
        if self.families is not None:
            return self.families
        dev = list(self.source.task_family.families)
        held = sorted(self.catalogue.family_ids() - set(dev))
        return FamilyRoles(development=dev, held_out=held)

    def with_family_folders(self, folders: Sequence[Path]) -> CycleSpec:
        """This spec with the task family folders ``folders`` added to ``families.folders``,
        each pinned by the digest of its content now (the roles the spec implies are written
        out when it declares none)."""
        roles = self.family_roles
        known = {f.path for f in roles.folders}
        added = [
            FamilyFolder(
                path=str(p.resolve()), digest=folder_digest(read_family_folder(p.resolve()))
            )
            for p in folders
            if str(p.resolve()) not in known
        ]
        data = self.model_dump(mode="json")
        data["families"] = {
            **roles.model_dump(mode="json"),
            "folders": [
                *roles.model_dump(mode="json")["folders"],
                *(f.model_dump() for f in added),
            ],
        }
        return CycleSpec.model_validate(data)

    @classmethod
    def load(cls, path: Path | Traversable, *, seed_if_missing: int | None = None) -> CycleSpec:
        """Read a spec from a .json file, or YAML otherwise; raise ConditionsError if invalid.

        A file without a ``seed`` gets ``seed_if_missing`` (`vwt cycle init` passes a
        ``fresh_seed()``), if given. The file may hold at most :data:`MAX_SPEC_BYTES` bytes
        nesting at most :data:`~conditions._wire.MAX_DEPTH` levels; YAML aliases are refused.
        """
        text = _read_spec_text(path)
        if path.name.endswith(".json"):
            data = loads_json(text, f"cycle spec {path}", "fix the JSON syntax")
        else:
            data = _load_yaml(text, path)
        if isinstance(path, Path) and isinstance(data, dict):
            data = {**data, "interfaces": _inline_interfaces(data.get("interfaces"), path.parent)}
            data = _pin_folders(data, path.parent)
        if seed_if_missing is not None and isinstance(data, dict) and "seed" not in data:
            data = {**data, "seed": seed_if_missing}
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            raise ConditionsError(
                f"cycle spec {path} is invalid: {describe_errors(e)}",
                "see conditions/cycle_spec.schema.json (or `vwt cycle schema`) for the format",
            ) from None


MAX_SPEC_BYTES = 4 * 1024 * 1024
"""Largest cycle spec file read."""


def _read_spec_text(path: Path | Traversable) -> str:
    if isinstance(path, Path):
        raw, problem = capped_bytes(path, MAX_SPEC_BYTES)
        if problem is not None:
            raise ConditionsError(f"cannot read cycle spec {path}: it {problem}", "check --spec")
    else:  # a file shipped in the package
        raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConditionsError(
            f"cannot read cycle spec {path}: it is not UTF-8 text", "check --spec"
        ) from None


class _BoundedLoader(yaml.SafeLoader):
    """A safe YAML loader that refuses aliases (no exponential expansion) and deep nesting."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        mark: Any = event.start_mark  # the pure-Python loader's yaml.error.Mark
        if isinstance(event, yaml.AliasEvent):
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed", mark)
        if self._depth >= MAX_DEPTH:
            raise yaml.composer.ComposerError(
                None, None, f"nesting deeper than {MAX_DEPTH} levels", mark
            )
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _load_yaml(text: str, path: Path | Traversable) -> Any:
    return parse_yaml(text, f"cycle spec {path}")


def parse_yaml(text: str, what: str) -> Any:
    """The value of the YAML document ``text``, safe-loaded (plain data only), without aliases
    and nested at most :data:`~conditions._wire.MAX_DEPTH` levels; ConditionsError ``<what>
    does not parse: <problem at line, column>`` otherwise."""
    loader = _BoundedLoader(text)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as e:
        raise ConditionsError(
            f"{what} does not parse: {_yaml_problem(e)}", "fix the YAML syntax"
        ) from None
    finally:
        loader.dispose()


def _yaml_problem(error: yaml.YAMLError) -> str:
    """One line: what is wrong and where (PyYAML's own text spans several lines)."""
    problem = getattr(error, "problem", None)
    mark = getattr(error, "problem_mark", None)
    if problem is None:
        lines = str(error).strip().splitlines()
        return lines[0] if lines else type(error).__name__
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"{problem}{where}"


def _inline_interfaces(entries: Any, root: Path) -> Any:
    """Replace version-file paths among ``entries`` by the versions the files hold."""
    if not isinstance(entries, list):
        return entries if entries is not None else []
    out = []
    for entry in entries:
        if not isinstance(entry, str):
            out.append(entry)
            continue
        try:
            out.append(load_version_file(root / entry).version.model_dump(mode="json"))
        except DriftError as e:
            raise ConditionsError(f"cycle spec interface {entry!r}: {e}", e.hint) from None
    return out


MAX_FOLDER_FILES = 2000
"""Files a task family's folder holds at most."""
MAX_FOLDER_FILE_BYTES = 4 * 1024 * 1024
"""Largest file in a task family's folder."""
MAX_FOLDER_BYTES = 32 * 1024 * 1024
"""Largest total size of a task family's folder."""


def read_family_folder(path: Path) -> dict[str, bytes]:
    """The files of a task family's folder (``drift.read_folder`` under the folder limits);
    ConditionsError naming the folder and the file that breaks a rule."""
    try:
        return read_folder(
            path,
            max_files=MAX_FOLDER_FILES,
            max_file_bytes=MAX_FOLDER_FILE_BYTES,
            max_total=MAX_FOLDER_BYTES,
        )
    except (FolderProblem, OSError) as e:
        raise ConditionsError(
            f"task family folder {path}: {e}",
            "a family folder holds regular files and folders only, within the limits of "
            "docs/folder-families.md",
        ) from None


def _pin_folders(data: dict[str, Any], root: Path) -> dict[str, Any]:
    """``data`` with each family folder given as a path replaced by ``{path, digest}``: the
    absolute path (relative ones are read from ``root``) and the digest of its content now."""
    roles = data.get("families")
    if not isinstance(roles, dict) or not isinstance(roles.get("folders"), list):
        return data
    pinned = []
    for entry in roles["folders"]:
        if isinstance(entry, str):
            folder = (root / entry).resolve()
            digest = folder_digest(read_family_folder(folder))
            entry = {"path": str(folder), "digest": digest}
        pinned.append(entry)
    return {**data, "families": {**roles, "folders": pinned}}
