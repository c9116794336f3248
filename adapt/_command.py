"""The submitter's own adaptation command, run in a sandbox with only the exported kit mounted.

The command sees the kit at ``kit/`` (read-only: the sample, the served tools, the frozen
bundle) and must write the adapted bundle, packed (``vwt submissions pack`` form), to
``out/bundle.json`` in its working directory. It runs for at most the wall seconds left in the
budget. It has no model access: a command's model calls would need a metered endpoint the
sandbox can reach, which the runner does not provide yet.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from pydantic import ValidationError

from adapt._access import AdaptationKit
from adapt._bundle import AdaptedBundle
from adapt._human import export_kit
from adapt._meter import MeteredGateway
from adapt._procedures import Procedure
from adapt.errors import AdaptError
from runner import Mount, make_sandbox
from submissions import MAX_BUNDLE_BYTES, Bundle

OUTPUT = "out/bundle.json"
"""Where the command writes the adapted bundle (relative to its working directory)."""
_TAIL = 400


async def _run(
    argv: list[str], kit_dir: Path, sandbox: str, timeout: float
) -> tuple[bytes | None, str]:
    async with make_sandbox(sandbox, mounts=[Mount(kit_dir, "kit")]) as box:
        result = await box.exec(argv, timeout=timeout)
        tail = result.stderr.decode("utf-8", "replace")[-_TAIL:].strip()
        if not result.ok:
            why = "timed out" if result.timed_out else f"exited {result.returncode}"
            return None, f"the command {why}" + (f": {tail}" if tail else "")
        try:
            return await box.read_file(OUTPUT), "the command exited 0"
        except FileNotFoundError:
            return None, f"the command wrote no {OUTPUT}"


def command_procedure(argv: list[str], *, sandbox: str = "auto") -> Procedure:
    """A procedure that runs ``argv`` in a ``sandbox`` ('auto', 'local' or 'docker') with the
    kit mounted, and takes the bundle it writes (unchanged, with the reason, if it fails)."""
    if not argv:
        raise AdaptError("an adaptation command needs at least a program", "e.g. ['./adapt.sh']")

    def command(bundle: Bundle, kit: AdaptationKit, gateway: MeteredGateway) -> AdaptedBundle:
        seconds = gateway.remaining_seconds()
        adapted, notes = bundle, []
        if seconds <= 0:
            notes.append("not run: the budget's wall seconds are spent")
        else:
            with tempfile.TemporaryDirectory(prefix="vwt-adapt-kit-") as tmp:
                kit_dir = export_kit(kit, bundle, gateway.budget, Path(tmp) / "kit")
                data, why = asyncio.run(_run(argv, kit_dir, sandbox, seconds))
            notes.append(why)
            if data is not None and len(data) > MAX_BUNDLE_BYTES:
                notes.append(f"{OUTPUT} is over {MAX_BUNDLE_BYTES:,} bytes; not kept")
            elif data is not None:
                try:
                    adapted = Bundle.model_validate_json(data)
                except ValidationError as e:
                    err = e.errors()[0]
                    where = ".".join(str(p) for p in err["loc"]) or "(top level)"
                    notes.append(f"{OUTPUT} is not a valid bundle ({where}: {err['msg']})")
        if adapted.manifest.name != bundle.manifest.name:
            notes.append(f"{OUTPUT} renames the submission; not kept")
            adapted = bundle
        return AdaptedBundle.make(
            bundle,
            adapted,
            target=kit.target_id,
            procedure="command",
            cost=gateway.cost(),
            notes=tuple(notes),
        )

    return command
