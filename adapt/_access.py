"""What an adaptation procedure may read, and the log of everything it read.

The kit serves one target condition's adaptation sample (the ``adapt`` split of each of its
families, disjoint from the sealed split), the public examples, and the served tool
definitions. The sample is drawn from a secret seed of its own (``Cycle.kit_seed``), not from
the cycle seed: what a kit serves lets no one test a guess of the cycle seed, which draws the
sealed tasks. It never generates a sealed task: a procedure that asks for one by id or by split
is refused, and the refusal is logged like every read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any, Literal, NoReturn

import rfc8785
from pydantic import BaseModel, ConfigDict, Field

from adapt.errors import AdaptError, SealedRead
from benchmark import Family, Task, family, served_interface
from conditions import Condition
from drift import InterfaceVersion, ServedInterface
from submissions import Bundle

ADAPT_SPLIT = "adapt"
"""The split adaptation samples are drawn from (disjoint from ``sealed`` in every family)."""

ReadKind = Literal["task", "split", "tool", "file"]


def sha256_json(obj: Any) -> str:
    """SHA-256 of the RFC 8785 canonical JSON of ``obj``."""
    return hashlib.sha256(rfc8785.dumps(obj)).hexdigest()


def sha256_text(text: str) -> str:
    """SHA-256 of ``text`` as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def task_sha(task: Task) -> str:
    """The content hash of a task (what the log records for a task read)."""
    return sha256_json(task.model_dump(mode="json"))


class AccessEntry(BaseModel):
    """One read: what was read, its content hash, and whether it was served."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seq: int = Field(ge=0, description="Position in the log.")
    kind: ReadKind = Field(description="'task', 'split', 'tool' (a served tool list) or 'file'.")
    id: str = Field(description="Task id, 'family/split', environment id, or file path.")
    sha256: str = Field(description="SHA-256 of what was served (of the id, when refused).")
    allowed: bool = Field(description="False when the kit refused the read.")
    reason: str = Field(default="", description="Why it was refused.")


class AccessLog:
    """An append-only log of reads, canonical JSON with a digest to sign into the ledger."""

    def __init__(self) -> None:
        self._entries: list[AccessEntry] = []

    def record(
        self, kind: ReadKind, id: str, sha256: str, *, allowed: bool = True, reason: str = ""
    ) -> AccessEntry:
        """Append one read."""
        entry = AccessEntry(
            seq=len(self._entries), kind=kind, id=id, sha256=sha256, allowed=allowed, reason=reason
        )
        self._entries.append(entry)
        return entry

    @property
    def entries(self) -> tuple[AccessEntry, ...]:
        """Every read, in order."""
        return tuple(self._entries)

    def refused(self) -> list[AccessEntry]:
        """The reads the kit refused."""
        return [e for e in self._entries if not e.allowed]

    def as_json(self) -> dict[str, Any]:
        """The log as a JSON object (what is published with the release)."""
        return {"v": 1, "entries": [e.model_dump(mode="json") for e in self._entries]}

    def canonical(self) -> bytes:
        """RFC 8785 canonical JSON of ``as_json()``."""
        return rfc8785.dumps(self.as_json())

    def digest(self) -> str:
        """SHA-256 of the canonical JSON (what the ledger entry carries)."""
        return hashlib.sha256(self.canonical()).hexdigest()

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AccessLog:
        """A log read back from ``as_json()`` output (AdaptError if malformed)."""
        if not isinstance(data, dict) or data.get("v") != 1:
            raise AdaptError("not an access log (format 1)")
        log = cls()
        for i, raw in enumerate(data.get("entries") or []):
            entry = AccessEntry.model_validate(raw)
            if entry.seq != i:
                raise AdaptError(f"access log entry {i} has seq {entry.seq}: entries out of order")
            log._entries.append(entry)
        return log


def sealed_reads(log: AccessLog, sealed: Iterable[Task]) -> list[AccessEntry]:
    """The served reads in ``log`` of any task in ``sealed`` (by id or content): the check that
    proves an adaptation read no sealed task is that this is empty."""
    ids, shas = set(), set()
    for t in sealed:
        ids.add(t.id)
        shas.add(task_sha(t))
    return [e for e in log.entries if e.allowed and (e.id in ids or e.sha256 in shas)]


class AdaptationKit:
    """What one adaptation may read for one target condition, every read logged.

    ``sample`` tasks of the ``adapt`` split per target family and ``examples`` of its public
    examples split, served as they are; the target's served tool definitions; the frozen
    bundle's files through ``artifact``. Anything else — a sealed task above all — is refused
    with SealedRead, after the refusal is logged. ``sample_seed`` draws the adapt split (a
    cycle's ``kit_seed('adapt')``; never its cycle seed). ``target_id`` names the target in
    records (a committed target's keyed id; default: the condition's public id); ``sandbox``
    where the code this adaptation runs (its sample's trials, the submitter's command) runs.
    """

    def __init__(
        self,
        target: Condition,
        *,
        sample_seed: int,
        sample: int,
        examples: int = 0,
        interfaces: Sequence[InterfaceVersion] = (),
        target_id: str | None = None,
        log: AccessLog | None = None,
        sandbox: str = "auto",
    ) -> None:
        if sample < 1:
            raise AdaptError(f"an adaptation sample needs at least 1 task (got {sample})")
        self.target = target
        self.target_id = target_id or target.id
        self.log = log if log is not None else AccessLog()
        self.sandbox = sandbox
        """Where the sample's trials and a submitter's command run: 'auto' (Docker, or a
        refusal), 'docker', or 'local' when the operator names it."""
        self._seed, self._n, self._examples = sample_seed, sample, examples
        self._families: dict[str, Family] = {f: family(f) for f in target.task_family.families}
        self._served: dict[str, ServedInterface] = {
            env: served_interface(env, version, interfaces)
            for env, version in target.tool_interface.items()
        }
        self._tasks: dict[str, Task] | None = None

    @property
    def model(self) -> str:
        """The target's model (litellm string): what a procedure's trials run on."""
        return self.target.model.model

    @property
    def harness(self) -> str:
        """The target's harness version id."""
        return self.target.harness

    @property
    def families(self) -> tuple[str, ...]:
        """The target's task families."""
        return tuple(self._families)

    def _served_tasks(self) -> dict[str, Task]:
        if self._tasks is None:
            self._tasks = {}
            for fam in self._families.values():
                drawn = fam.tasks(ADAPT_SPLIT, self._n, self._seed)
                if fam.examples_split and self._examples:
                    drawn += fam.tasks(fam.examples_split, self._examples, self._seed)
                self._tasks.update({t.id: t for t in drawn})
        return self._tasks

    def _serve(self, task: Task) -> Task:
        self.log.record("task", task.id, task_sha(task))
        return task

    def sample(self) -> list[Task]:
        """The adaptation sample: the first ``sample`` tasks of each family's adapt split."""
        tasks = [t for t in self._served_tasks().values() if t.split == ADAPT_SPLIT]
        self.log.record(
            "split", "+".join(self.families) + f"/{ADAPT_SPLIT}", sha256_json([t.id for t in tasks])
        )
        return [self._serve(t) for t in tasks]

    def examples(self) -> list[Task]:
        """The public worked examples served with the kit (none unless asked for)."""
        tasks = [t for t in self._served_tasks().values() if t.split != ADAPT_SPLIT]
        return [self._serve(t) for t in tasks]

    def task(self, task_id: str) -> Task:
        """One served task by id; any other id is refused (logged, then SealedRead)."""
        served = self._served_tasks().get(task_id)
        if served is not None:
            return self._serve(served)
        parts = task_id.split("/")  # family/split/index-hash
        if len(parts) != 3:
            self._refuse("task", task_id, "not a task id")
        split = parts[1]
        what = "a sealed task" if split == "sealed" else f"not in the kit ({parts[0]}/{split})"
        self._refuse("task", task_id, what)

    def split(self, family_id: str, split: str) -> list[Task]:
        """The served tasks of ``family_id``'s ``split``; a split the kit does not serve (the
        sealed one above all) is refused (logged, then SealedRead)."""
        if family_id in self._families and split in (ADAPT_SPLIT, self._example_split(family_id)):
            tasks = [
                t
                for t in self._served_tasks().values()
                if (t.family, t.split) == (family_id, split)
            ]
            self.log.record("split", f"{family_id}/{split}", sha256_json([t.id for t in tasks]))
            return [self._serve(t) for t in tasks]
        what = "the sealed split" if split == "sealed" else "a split the kit does not serve"
        self._refuse("split", f"{family_id}/{split}", what)

    def _example_split(self, family_id: str) -> str | None:
        return self._families[family_id].examples_split if self._examples else None

    def _refuse(self, kind: ReadKind, id: str, what: str) -> NoReturn:
        reason = f"{what}: an adaptation reads only the target's adaptation sample"
        self.log.record(
            kind, id, hashlib.sha256(id.encode()).hexdigest(), allowed=False, reason=reason
        )
        raise SealedRead(f"refused to read {id!r}: {reason}", "use kit.sample()")

    @property
    def environments(self) -> tuple[str, ...]:
        """The environment ids the target serves."""
        return tuple(self._served)

    def served(self, env: str) -> ServedInterface:
        """The interface the target serves for ``env`` (logged as a tool read)."""
        if env not in self._served:
            raise AdaptError(
                f"the target serves no environment {env!r}",
                f"served: {', '.join(self._served)}",
            )
        now = self._served[env]
        self.log.record("tool", env, now.digest)
        return now

    def tools(self, env: str) -> list[dict[str, Any]]:
        """The served tool definitions of ``env`` (MCP form), logged."""
        return list(self.served(env).tools.to_mcp())

    def artifact(self, bundle: Bundle, path: str) -> str:
        """The text of the artifact at ``path`` in ``bundle`` (the frozen parent), logged."""
        if path not in bundle.files:
            raise AdaptError(f"bundle {bundle.manifest.name!r} has no artifact {path!r}")
        text = bundle.files[path]
        self.log.record("file", f"{bundle.hash[:12]}/{path}", sha256_text(text))
        return text

    def note_file(self, rel: str, data: bytes) -> None:
        """Log a file handed out with the kit (an export's files are read by whoever gets it)."""
        self.log.record("file", rel, hashlib.sha256(data).hexdigest())
