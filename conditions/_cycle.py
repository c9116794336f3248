"""The operator's handle on a release cycle stored under a home directory."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from conditions._commitment import CommitmentSecret, commit, make_leaves
from conditions._condition import Condition
from conditions._home import CycleHome, CycleRecord, now_rfc3339
from conditions._keys import b64, create_key, fingerprint, load_key, public_key_b64
from conditions._ledger import GENESIS, Ledger, LedgerEntry
from conditions._reveal import make_reveal
from conditions._spec import CycleSpec
from conditions._state import GUARDED, NEXT_STEP, CycleState
from conditions._targets import Target, TargetSet, plan_targets
from conditions._verify import verify_commitment, verify_commitment_and_reveal
from conditions._wire import canonical, parse, read_json, sha256_hex, write_json
from conditions.errors import ConditionsError

STATE_EVENT = "cycle.state"
"""Ledger kind of a state transition."""


class Cycle:
    """A release cycle: its spec, key, targets, commitment, reveal, state and ledger."""

    def __init__(self, home: Path, record: CycleRecord, passphrase: str | None = None) -> None:
        """Wrap an existing cycle home; use ``Cycle.init`` or ``Cycle.open`` instead."""
        self.home = home
        self.paths = CycleHome(home)
        self.record = record
        self.ledger = Ledger(self.paths.db)
        self._passphrase = passphrase
        self._key: Ed25519PrivateKey | None = None

    @classmethod
    def init(
        cls,
        home: Path,
        spec: CycleSpec,
        *,
        force: bool = False,
        key_path: Path | None = None,
        passphrase: str | None = None,
    ) -> Cycle:
        """Start a cycle in ``home`` (state draft); create a key unless ``key_path`` holds one.

        Refuses a home that already holds a cycle unless ``force``, which moves the old cycle's
        files to ``home/superseded/<time>/``. A new key is written 0600, encrypted if a
        passphrase is given.
        """
        paths = CycleHome(home)
        if paths.exists() and not force:
            raise ConditionsError(
                f"{home} already holds a release cycle",
                "use another --home, or --force to start over (the old cycle is kept under "
                f"{home}/superseded/)",
            )
        key = load_key(key_path, passphrase) if key_path and key_path.exists() else None
        if paths.exists():
            paths.supersede()
        paths.create_dirs()
        if key is None:
            key = create_key(key_path or paths.default_key, passphrase)
        record = CycleRecord(
            spec=spec,
            key_path=str(key_path.resolve()) if key_path else None,
            public_key=public_key_b64(key),
            created_at=now_rfc3339(),
        )
        write_json(paths.record, record, private=True)
        cycle = cls(home, record, passphrase)
        cycle._key = key
        cycle.ledger.append(
            "cycle.init",
            {
                "cycle": spec.cycle,
                "spec_sha256": sha256_hex(canonical(spec.model_dump(mode="json"))),
                "public_key": record.public_key,
            },
        )
        cycle.ledger.append(STATE_EVENT, {"from": None, "to": "draft", "note": "initialised"})
        return cycle

    @classmethod
    def open(cls, home: Path, *, passphrase: str | None = None) -> Cycle:
        """Open the cycle in ``home``; the key is read only when something must be signed."""
        paths = CycleHome(home)
        if not paths.record.exists():
            raise ConditionsError(
                f"no release cycle in {home}", f"run `vwt cycle init --home {home}` first"
            )
        record = parse(CycleRecord, read_json(paths.record, "cycle record"), str(paths.record))
        return cls(home, record, passphrase)

    @property
    def spec(self) -> CycleSpec:
        """The cycle spec."""
        return self.record.spec

    @property
    def id(self) -> str:
        """The cycle id."""
        return self.spec.cycle

    @property
    def source(self) -> Condition:
        """The public source condition."""
        return self.spec.source

    @property
    def public_key_b64(self) -> str:
        """The operator's Ed25519 public key, base64."""
        return self.record.public_key

    @property
    def fingerprint(self) -> str:
        """Fingerprint of the operator key, for people to compare."""
        return fingerprint(self.record.public_key)

    @property
    def key_path(self) -> Path:
        """Where the signing key is."""
        return Path(self.record.key_path) if self.record.key_path else self.paths.default_key

    def sign(self, data: bytes) -> bytes:
        """Ed25519 signature of ``data`` by the operator key (also used to sign releases)."""
        if self._key is None:
            self._key = load_key(self.key_path, self._passphrase)
            if public_key_b64(self._key) != self.record.public_key:
                raise ConditionsError(
                    f"the key at {self.key_path} is not the key this cycle was started with",
                    "restore the cycle's original signing key",
                )
        return self._key.sign(data)

    # -- state ---------------------------------------------------------------------------

    @property
    def state(self) -> CycleState:
        """The current state: the target of the last recorded transition."""
        last = self.ledger.last(STATE_EVENT)
        return CycleState(last.payload["to"]) if last else CycleState.draft

    def history(self) -> list[LedgerEntry]:
        """Every recorded state transition, oldest first."""
        return self.ledger.entries(STATE_EVENT)

    def require_state(self, *states: CycleState, action: str = "submit a bundle") -> None:
        """Raise ConditionsError (saying the state and what to do) unless in one of ``states``."""
        current = self.state
        if current not in states:
            needed = " or ".join(f"'{s.value}'" for s in states)
            raise ConditionsError(
                f"cannot {action}: cycle {self.id} is in state '{current.value}', not {needed}",
                NEXT_STEP[current],
            )

    def transition(self, state: CycleState | str, note: str = "") -> LedgerEntry:
        """Move one step forward to ``state``, recorded with a timestamp in the ledger.

        'committed' and 'revealed' are reached only by ``commit()`` and ``reveal()``.
        """
        target = _as_state(state)
        if target in GUARDED:
            raise ConditionsError(
                f"cycle {self.id} cannot be moved to '{target.value}' by hand: {GUARDED[target]}",
                NEXT_STEP[self.state],
            )
        return self._move(target, note)

    def _move(self, target: CycleState, note: str) -> LedgerEntry:
        last = self.ledger.last(STATE_EVENT)
        current = CycleState(last.payload["to"]) if last else CycleState.draft
        following = current.next()
        if following != target:
            order = list(CycleState)
            why = (
                "it is already there"
                if target == current
                else "states never move back"
                if order.index(target) < order.index(current)
                else f"the next state is '{following.value if following else '-'}'"
            )
            raise ConditionsError(
                f"cycle {self.id} is in state '{current.value}' and cannot move to "
                f"'{target.value}': {why}",
                NEXT_STEP[current],
            )
        payload = {"from": current.value, "to": target.value, "note": note}
        return self.ledger.append(STATE_EVENT, payload, expect_last=last.hash if last else GENESIS)

    # -- targets, commitment, reveal -------------------------------------------------------

    def generate(self, max_conditions: int | None = None) -> list[Target]:
        """Generate (or regenerate) the target conditions; only while in draft."""
        self.require_state(CycleState.draft, action="change the target conditions")
        plan = plan_targets(self.spec, max_conditions)
        write_json(self.paths.targets, plan, private=True)
        self.ledger.append("conditions.generated", plan.manifest.model_dump(mode="json"))
        return plan.targets

    def target_set(self) -> TargetSet:
        """The stored targets with their generation manifest."""
        if not self.paths.targets.exists():
            raise ConditionsError(
                f"cycle {self.id} has no target conditions yet", "run `vwt conditions generate`"
            )
        return parse(TargetSet, read_json(self.paths.targets, "targets"), "stored targets")

    def targets(self) -> list[Target]:
        """The target conditions (operator-side; private until the reveal)."""
        return self.target_set().targets

    def commit(self) -> Path:
        """Commit to the targets: write the private opening and public/commitment.json."""
        self.require_state(CycleState.draft, action="commit the target conditions")
        leaves = make_leaves(self.id, [t.condition for t in self.targets()])
        signed, secret = commit(
            leaves,
            cycle=self.id,
            opens_at=self.spec.opens_at,
            closes_at=self.spec.closes_at,
            public_key=self.public_key_b64,
            sign=lambda data: b64(self.sign(data)),
        )
        write_json(self.paths.secret, secret, private=True)
        write_json(self.paths.commitment, signed)
        c = signed.commitment
        self.ledger.append(
            "conditions.committed",
            {"root": c.root, "tree_size": c.tree_size, "commitment": c.digest()},
        )
        self._move(CycleState.committed, "commitment published")
        return self.paths.commitment

    def reveal(self, condition_ids: Iterable[str] | None = None, out: Path | None = None) -> Path:
        """Reveal every committed condition, or only ``condition_ids``, with audit paths.

        Allowed once the adapted runs are final (moving the cycle to 'revealed') and after.
        The reveal is verified against the commitment before it is written.
        """
        self.require_state(
            CycleState.adapted_run, CycleState.revealed, action="reveal the target conditions"
        )
        signed = verify_commitment(self.paths.commitment, self.public_key_b64)
        secret = parse(CommitmentSecret, read_json(self.paths.secret, "opening"), "opening")
        indices = self._indices(secret, condition_ids)
        full = len(indices) == len(secret.leaves)
        reveal = make_reveal(signed, secret, indices, full=full, sign=lambda d: b64(self.sign(d)))
        path = out or self.paths.reveal
        draft = path.with_name(f".{path.name}.unverified")
        write_json(draft, reveal)
        try:
            verify_commitment_and_reveal(self.paths.commitment, draft, self.public_key_b64)
            os.replace(draft, path)
        finally:
            draft.unlink(missing_ok=True)
        self.ledger.append(
            "conditions.revealed",
            {
                "scope": reveal.reveal.scope,
                "leaves": len(indices),
                "sha256": sha256_hex(reveal.canonical()),
            },
        )
        if self.state == CycleState.adapted_run:
            self._move(CycleState.revealed, f"{reveal.reveal.scope} reveal")
        return path

    def _indices(self, secret: CommitmentSecret, condition_ids: Iterable[str] | None) -> list[int]:
        by_id = {leaf.condition.id: i for i, leaf in enumerate(secret.leaves)}
        if condition_ids is None:
            return sorted(by_id.values())
        wanted = set(condition_ids)
        unknown = sorted(wanted - by_id.keys())
        if unknown:
            raise ConditionsError(
                f"not committed in cycle {self.id}: {', '.join(unknown)}",
                "pick ids from `vwt conditions list`",
            )
        if not wanted:
            raise ConditionsError("no condition chosen to reveal", "name at least one condition id")
        return sorted(by_id[c] for c in wanted)


def _as_state(state: CycleState | str) -> CycleState:
    try:
        return CycleState(state)
    except ValueError:
        names = ", ".join(s.value for s in CycleState)
        raise ConditionsError(f"unknown cycle state {state!r}", f"use one of: {names}") from None
