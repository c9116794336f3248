"""Where a cycle's files live under its home directory, and the operator's private record."""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from conditions._spec import CycleSpec
from conditions.errors import ConditionsError


class CycleRecord(BaseModel):
    """operator/cycle.json: the spec and which key signs for the cycle."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: Literal[1] = Field(default=1, description="Format version.")
    spec: CycleSpec = Field(description="The cycle spec, fixed at init.")
    key_path: str | None = Field(
        description="Absolute path of the signing key, or None for operator/signing_key.pem."
    )
    public_key: str = Field(description="The signing key's public half (base64).")
    created_at: str = Field(description="When the cycle was initialised (RFC 3339, UTC).")


def now_rfc3339() -> str:
    """The current UTC time, RFC 3339 with a 'Z'."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class CycleHome:
    """The layout of a cycle home: SQLite at the top, private operator/ (0700), public/."""

    def __init__(self, root: Path) -> None:
        """Name the paths under ``root``; creates nothing."""
        self.root = root
        self.db = root / "vwt.sqlite"
        self.operator = root / "operator"
        self.public = root / "public"
        self.record = self.operator / "cycle.json"
        self.default_key = self.operator / "signing_key.pem"
        self.targets = self.operator / "targets.json"
        self.secret = self.operator / "commitment_secret.json"
        self.kit_secret = self.operator / "kit.secret"
        self.redteam = self.operator / "redteam.json"
        """The verifier red-team gate's last passing result (``benchmark.require_gate``)."""
        self.commitment = self.public / "commitment.json"
        self.reveal = self.public / "reveal.json"

    def exists(self) -> bool:
        """Whether a cycle was initialised here."""
        return self.record.exists() or self.db.exists()

    @property
    def db_files(self) -> list[Path]:
        """The SQLite database and its WAL and shared-memory files."""
        return [self.db] + [self.db.with_name(self.db.name + s) for s in ("-wal", "-shm")]

    def create_dirs(self) -> None:
        """Make the home (0700), a private operator/ (0700) and public/."""
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.root, 0o700)
        self.operator.mkdir(mode=0o700, exist_ok=True)
        os.chmod(self.operator, 0o700)
        self.public.mkdir(exist_ok=True)

    def check_private(self) -> None:
        """Refuse a home, operator/ or database that other users can read or write.

        Trial records and the ledger hold hidden conditions until the reveal; the message
        names the loose paths and gives the chmod that fixes them.
        """
        loose: list[tuple[Path, int, str]] = []
        for path, fix in [(self.root, "700"), (self.operator, "700")] + [
            (p, "600") for p in self.db_files
        ]:
            try:
                mode = path.stat().st_mode & 0o777
            except FileNotFoundError:
                continue
            if mode & 0o077:
                loose.append((path, mode, fix))
        if loose:
            shown = ", ".join(f"{p} is {m:04o}" for p, m, _ in loose)
            fixes = "; ".join(
                f"chmod {fix} {' '.join(str(p) for p, _, f in loose if f == fix)}"
                for fix in dict.fromkeys(f for _, _, f in loose)
            )
            raise ConditionsError(
                f"the cycle home is readable by other users ({shown}); it holds hidden "
                "conditions until the reveal",
                f"make it private: {fixes}",
            )

    def supersede(self) -> Path:
        """Move this home's cycle files to superseded/<time>/ (nothing is deleted)."""
        dest = self.root / "superseded" / datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        dest.mkdir(parents=True, exist_ok=False)
        for path in [self.operator, self.public, *self.db_files]:
            if path.exists():
                shutil.move(path, dest / path.name)
        return dest
