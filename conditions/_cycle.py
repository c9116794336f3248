"""The operator's handle on a release cycle stored under a home directory."""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from conditions._commitment import (
    CommitmentSecret,
    CommittedEvaluation,
    CommittedFamilies,
    commit,
    make_leaves,
)
from conditions._condition import Condition
from conditions._home import CycleHome, CycleRecord, now_rfc3339
from conditions._keys import b64, create_key, fingerprint, load_key, public_key_b64
from conditions._kitseed import create_kit_secret, kit_seed
from conditions._ledger import GENESIS, Ledger, LedgerEntry, LedgerMark
from conditions._reveal import make_reveal
from conditions._spec import PUBLIC_SEEDS, CycleSpec, parse_time
from conditions._state import GUARDED, NEXT_STEP, CycleState
from conditions._targets import Target, TargetSet, plan_targets
from conditions._verify import verify_commitment, verify_commitment_and_reveal
from conditions._wire import canonical, parse, read_json, sha256_hex, write_json
from conditions.errors import ConditionsError

STATE_EVENT = "cycle.state"
"""Ledger kind of a state transition."""

ADAPTATION_EVENT = "adaptation.recorded"
"""Ledger kind of one submission's adaptation to one target (``vwt adapt``); its payload
names the frozen ``parent`` bundle hash, the ``target`` id and the ``adapted`` bundle hash."""
_SUBMISSION_EVENT = "submission.received"
"""``submissions.SUBMISSION_EVENT`` (the submissions package builds on this one)."""

TRIAL_MACS = "trial_macs"
"""Key of the ``cycle.init`` payload saying the cycle's trial store authenticates every record
(with ``Ledger.mac``): a cycle started by an older vwt has no such records to demand."""

_COUNTS = ("expected", "valid", "invalid", "missing", "unexpected")
"""Accounting counts a ``run.<phase>`` ledger entry must carry."""


class Cycle:
    """A release cycle: its spec, key, targets, commitment, reveal, state and ledger."""

    def __init__(self, home: Path, record: CycleRecord, passphrase: str | None = None) -> None:
        """Wrap an existing cycle home; use ``Cycle.init`` or ``Cycle.open`` instead."""
        self.home = home
        self.paths = CycleHome(home)
        self.record = record
        self.ledger = Ledger(self.paths.db, self.paths.operator)
        self._passphrase = passphrase
        self._key: Ed25519PrivateKey | None = None
        self.verified_to: LedgerMark | None = None

    @classmethod
    def init(
        cls,
        home: Path,
        spec: CycleSpec,
        *,
        force: bool = False,
        key_path: Path | None = None,
        passphrase: str | None = None,
        kit_secret: bytes | None = None,
    ) -> Cycle:
        """Start a cycle in ``home`` (state draft); create a key unless ``key_path`` holds one.

        Refuses a home that already holds a cycle unless ``force``, which moves the old cycle's
        files to ``home/superseded/<time>/``. A new key is written 0600, encrypted if a
        passphrase is given. The kit secret (``conditions._kitseed``) is drawn fresh, unless
        ``kit_secret`` (32 bytes) is given: only for a public cycle whose runs must repeat, as
        ``vwt demo``'s.
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
        create_kit_secret(paths.kit_secret, kit_secret)
        cycle = cls(home, record, passphrase)
        cycle._key = key
        cycle.ledger.append(
            "cycle.init",
            {
                "cycle": spec.cycle,
                "spec_sha256": sha256_hex(canonical(spec.model_dump(mode="json"))),
                "public_key": record.public_key,
                TRIAL_MACS: True,
            },
        )
        cycle.ledger.append(STATE_EVENT, {"from": None, "to": "draft", "note": "initialised"})
        return cycle

    @classmethod
    def open(
        cls, home: Path, *, passphrase: str | None = None, verified: LedgerMark | None = None
    ) -> Cycle:
        """Open the cycle in ``home``, checked; the key is read only when something is signed.

        Refuses a home other users can read (``CycleHome.check_private``) and a ledger that
        fails ``Ledger.verify`` (a missing, edited or re-chained entry, or an end that is not
        the last checkpoint's); ``verified``: the ``verified_to`` of a cycle this process
        opened before, so only the entries since are checked. ``verified_to`` says where the
        ledger was checked to.
        """
        paths = CycleHome(home)
        if not paths.record.exists():
            raise ConditionsError(
                f"no release cycle in {home}",
                "pass the --home of the operator's cycle (or VWT_HOME); operators start one "
                "with `vwt cycle init`",
            )
        paths.check_private()
        record = parse(CycleRecord, read_json(paths.record, "cycle record"), str(paths.record))
        cycle = cls(home, record, passphrase)
        cycle.verified_to = cycle.ledger.verify(verified)
        return cycle

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

    def kit_seed(self, purpose: str) -> int:
        """The secret 256-bit seed of ``purpose`` (the ``adapt`` split: what adaptation kits
        serve), from the cycle's kit secret (``conditions._kitseed``), never from the cycle
        seed. A cycle started by an older vwt gets its kit secret on first use."""
        return kit_seed(create_kit_secret(self.paths.kit_secret), self.id, purpose)

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

    def transition(
        self,
        state: CycleState | str,
        note: str = "",
        *,
        accept_invalid: bool = False,
        override_window: bool = False,
    ) -> LedgerEntry:
        """Move one step forward to ``state``, recorded with a timestamp in the ledger.

        'committed' and 'revealed' are reached only by ``commit()`` and ``reveal()``.
        'open' is refused before the spec's ``opens_at`` unless ``override_window`` (recorded
        as ``"override": "opens_at"``). 'adaptation' needs the last ``run.frozen`` ledger entry
        to account for every planned trial (none missing or unexpected) with none invalid;
        ``accept_invalid`` lets invalid trials through, recorded with their count.
        'adapted_run' needs an ``adaptation.recorded`` ledger entry for every submission ×
        committed target (``vwt adapt``).
        """
        target = _as_state(state)
        if target in GUARDED:
            raise ConditionsError(
                f"cycle {self.id} cannot be moved to '{target.value}' by hand: {GUARDED[target]}",
                NEXT_STEP[self.state],
            )
        return self._move(
            target, note, accept_invalid=accept_invalid, override_window=override_window
        )

    def _guard(
        self, target: CycleState, *, accept_invalid: bool, override_window: bool
    ) -> dict[str, Any]:
        """Check what ``target`` needs beyond being next; return what to record about it."""
        if target == CycleState.open:
            opens_at = parse_time(self.spec.opens_at)
            if datetime.now(UTC) >= opens_at:
                return {}
            if not override_window:
                raise ConditionsError(
                    f"cycle {self.id} cannot open before its opens_at {self.spec.opens_at} "
                    f"(now {now_rfc3339()})",
                    f"wait until then, or open early with `vwt cycle advance open --home "
                    f"{self.home} --override-window` (recorded in the ledger)",
                )
            return {"override": "opens_at", "opens_at": self.spec.opens_at}
        if target == CycleState.adapted_run:
            return self._require_adapted()
        if target == CycleState.adaptation:
            return self._require_run(
                "frozen",
                accept_invalid,
                f"`vwt cycle advance adaptation --home {self.home} --accept-invalid`",
            )
        return {}

    def adaptations(self) -> dict[tuple[str, str], LedgerEntry]:
        """The recorded adaptation of each (parent bundle hash, target id)."""
        return {
            (e.payload["parent"], e.payload["target"]): e
            for e in self.ledger.entries(ADAPTATION_EVENT)
        }

    def _require_adapted(self) -> dict[str, Any]:
        """Refuse 'adapted_run' until every submission is adapted to every committed target."""
        parents = [e.payload["bundle_hash"] for e in self.ledger.entries(_SUBMISSION_EVENT)]
        pairs = {(p, t.id) for p in parents for t in self.targets()} if parents else set()
        missing = pairs - self.adaptations().keys()
        if missing:
            raise ConditionsError(
                f"{len(missing)} of {len(pairs)} submission × target adaptations of cycle "
                f"{self.id} are not recorded",
                f"run `vwt adapt --home {self.home}` (it resumes: recorded pairs are skipped)",
            )
        return {"adaptations": len(pairs)}

    def _require_run(self, phase: str, accept_invalid: bool, bypass: str) -> dict[str, Any]:
        """Refuse unless the last ``run.<phase>`` entry is complete and clean (see transition).

        Returns what the transition records: the checked entry and any accepted invalids.
        """
        run = f"`vwt run {phase} --home {self.home}`"
        entry = self.ledger.last(f"run.{phase}")
        if entry is None:
            raise ConditionsError(
                f"cycle {self.id} has no {phase} run recorded: every planned {phase} trial "
                "must be run first",
                f"run {run}",
            )
        counts = {k: entry.payload.get(k) for k in _COUNTS}
        if any(type(v) is not int for v in counts.values()):
            raise ConditionsError(
                f"the last {phase} run record (ledger entry {entry.seq}) carries no accounting",
                f"run {run} again to record it",
            )
        if counts["missing"] or counts["unexpected"]:
            raise ConditionsError(
                f"the {phase} run is incomplete: {counts['missing']} of {counts['expected']} "
                f"planned trials missing, {counts['unexpected']} unexpected (ledger entry "
                f"{entry.seq})",
                f"run {run} to resume it; stored trials are not repeated",
            )
        if counts["invalid"] and not accept_invalid:
            raise ConditionsError(
                f"{counts['invalid']} of {counts['expected']} {phase} trials are invalid "
                f"(ledger entry {entry.seq})",
                f"run {run} (it retries invalid trials), or go on without them with "
                f"{bypass} (recorded in the ledger and the release)",
            )
        return {f"{phase}_run": {"ledger_seq": entry.seq, **counts}} | (
            {"accept_invalid": True, "invalid": counts["invalid"]} if counts["invalid"] else {}
        )

    def _move(
        self,
        target: CycleState,
        note: str,
        *,
        accept_invalid: bool = False,
        override_window: bool = False,
        checked: dict[str, Any] | None = None,
    ) -> LedgerEntry:
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
        extra = (
            checked
            if checked is not None
            else self._guard(target, accept_invalid=accept_invalid, override_window=override_window)
        )
        payload = {"from": current.value, "to": target.value, "note": note, **extra}
        return self.ledger.append(STATE_EVENT, payload, expect_last=last.hash if last else GENESIS)

    # -- targets, commitment, reveal -------------------------------------------------------

    def generate(
        self, max_conditions: int | None = None, *, draw_seed: int | None = None
    ) -> list[Target]:
        """Generate (or regenerate) the target conditions; only while in draft. A capped draw
        uses ``draw_seed``, by default a fresh secret one."""
        self.require_state(CycleState.draft, action="change the target conditions")
        plan = plan_targets(self.spec, max_conditions, draw_seed=draw_seed)
        write_json(self.paths.targets, plan, private=True)
        # The draw seed stays in the private targets.json only.
        public = plan.manifest.model_dump(mode="json", exclude={"draw_seed"})
        self.ledger.append(
            "conditions.generated", public | {"secret_draw": plan.manifest.draw_seed is not None}
        )
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

    def evaluation_conditions(self) -> list[tuple[str, Condition]]:
        """``(id, condition)`` to evaluate: the source (public id), then each target (keyed)."""
        return [(self.source.id, self.source)] + [(t.id, t.condition) for t in self.targets()]

    def commit(self, *, public_seed: bool = False) -> Path:
        """Commit to the targets, the evaluation size (the spec's tasks_per_split and k) and the
        families' roles: write the private opening and public/commitment.json.

        Refused for a seed vwt publishes (``PUBLIC_SEEDS``: anyone could regenerate the sealed
        tasks from it) unless ``public_seed`` says it is meant, as for the demo; the ledger's
        ``conditions.committed`` entry then says ``public_seed``.
        """
        self.require_state(CycleState.draft, action="commit the target conditions")
        public = self.spec.seed in PUBLIC_SEEDS
        if public and not public_seed:
            raise ConditionsError(
                f"cycle {self.id}'s seed {self.spec.seed} is public (the embedded default "
                "spec's): anyone could regenerate its sealed tasks and their answers",
                "start the cycle again with a secret seed (`vwt cycle init --force` without "
                "--spec draws one; or remove `seed:` from the spec), or pass --public-seed if "
                "a public cycle is meant (recorded in the ledger)",
            )
        leaves = make_leaves(self.id, [(t.condition, t.salt) for t in self.targets()])
        evaluation, roles = self.spec.evaluation, self.spec.family_roles
        signed, secret = commit(
            leaves,
            cycle=self.id,
            opens_at=self.spec.opens_at,
            closes_at=self.spec.closes_at,
            public_key=self.public_key_b64,
            evaluation=CommittedEvaluation(
                tasks_per_split=evaluation.tasks_per_split, k=evaluation.k
            ),
            families=CommittedFamilies(
                development=sorted(roles.development),
                held_out=sorted(roles.held_out),
                folders=sorted({f.digest for f in roles.folders}),
            ),
            sign=lambda data: b64(self.sign(data)),
        )
        write_json(self.paths.secret, secret, private=True)
        write_json(self.paths.commitment, signed)
        c = signed.commitment
        self.ledger.append(
            "conditions.committed",
            {
                "root": c.root,
                "tree_size": c.tree_size,
                "evaluation": c.evaluation.model_dump(mode="json"),
                "families": c.families.model_dump(mode="json"),
                "commitment": c.digest(),
            }
            | ({"public_seed": True} if public else {}),
        )
        self._move(CycleState.committed, "commitment published")
        return self.paths.commitment

    def reveal(
        self,
        condition_ids: Iterable[str] | None = None,
        out: Path | None = None,
        *,
        accept_invalid: bool = False,
    ) -> Path:
        """Reveal every committed condition, or only ``condition_ids`` (keyed ids), with proofs.

        Allowed once the adapted runs are final (moving the cycle to 'revealed') and after:
        from 'adapted_run', the last ``run.adapted`` entry must be complete and clean (or
        complete with invalid trials and ``accept_invalid``, recorded). The reveal is verified
        against the commitment before it is written.
        """
        self.require_state(
            CycleState.adapted_run, CycleState.revealed, action="reveal the target conditions"
        )
        checked = None
        if self.state == CycleState.adapted_run:
            checked = self._require_run(
                "adapted",
                accept_invalid,
                f"`vwt conditions reveal --home {self.home} --accept-invalid`",
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
            self._move(CycleState.revealed, f"{reveal.reveal.scope} reveal", checked=checked)
        return path

    def _indices(self, secret: CommitmentSecret, condition_ids: Iterable[str] | None) -> list[int]:
        by_id = {leaf.id: i for i, leaf in enumerate(secret.leaves)}
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
