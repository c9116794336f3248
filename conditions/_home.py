"""Where a cycle's files live under its home directory, and the operator's private record."""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from conditions._spec import CycleSpec


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
        self.commitment = self.public / "commitment.json"
        self.reveal = self.public / "reveal.json"

    def exists(self) -> bool:
        """Whether a cycle was initialised here."""
        return self.record.exists() or self.db.exists()

    def create_dirs(self) -> None:
        """Make the home, a private operator/ (0700) and public/."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.operator.mkdir(mode=0o700, exist_ok=True)
        os.chmod(self.operator, 0o700)
        self.public.mkdir(exist_ok=True)

    def supersede(self) -> Path:
        """Move this home's cycle files to superseded/<time>/ (nothing is deleted)."""
        dest = self.root / "superseded" / datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        dest.mkdir(parents=True, exist_ok=False)
        moved = [self.operator, self.public, self.db]
        moved += [self.db.with_name(self.db.name + s) for s in ("-wal", "-shm")]
        for path in moved:
            if path.exists():
                shutil.move(path, dest / path.name)
        return dest
