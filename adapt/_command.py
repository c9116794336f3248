"""The submitter's own adaptation command, run in a sandbox with only the exported kit mounted.

The command sees the kit at ``kit/`` (read-only: the sample, the served tools, the frozen
bundle) and must write the adapted bundle, packed (``vwt submissions pack`` form), to
``out/bundle.json`` in its working directory. It runs for at most the wall seconds left in the
budget. It has no model access: a command's model calls would need a metered endpoint the
sandbox can reach, which the runner does not provide yet.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from pydantic import ValidationError

from adapt._access import AdaptationKit
from adapt._bundle import AdaptedBundle
from adapt._human import export_kit
from adapt._meter import MeteredGateway
from adapt._pair_loop import run
from adapt._procedures import Procedure
from adapt._trials import UNTRUSTED
from adapt.errors import AdaptError
from runner import Mount, OutputRefused, make_sandbox
from submissions import MAX_BUNDLE_BYTES, Bundle

OUTPUT = "out/bundle.json"
"""Where the command writes the adapted bundle (relative to its working directory)."""
_TAIL = 400


async def _run(
    argv: list[str], kit_dir: Path, sandbox: str, timeout: float
) -> tuple[bytes | None, str]:
    box = make_sandbox(sandbox, mounts=[Mount(kit_dir, "kit")], untrusted=UNTRUSTED)
    async with box:
        result = await box.exec(argv, timeout=timeout)
        tail = result.stderr.decode("utf-8", "replace")[-_TAIL:].strip()
        if not result.ok:
            why = "timed out" if result.timed_out else f"exited {result.returncode}"
            return None, f"the command {why}" + (f": {tail}" if tail else "")
        try:
            return await box.read_file(OUTPUT, limit=MAX_BUNDLE_BYTES), "the command exited 0"
        except FileNotFoundError:
            return None, f"the command wrote no {OUTPUT}"
        except OutputRefused as e:
            return None, f"the command exited 0; {OUTPUT} not read: {_after_path(e)}"
        except OSError as e:  # e.g. made unreadable: the submitter's output, not our failure
            return None, f"the command exited 0; {OUTPUT} not readable: {_after_path(e)}"


def _after_path(e: OSError) -> str:
    """What an OSError from a sandbox file read says, without the sandbox's own path."""
    return str(e).split(": ", 1)[-1]


def command_procedure(argv: list[str], *, sandbox: str | None = None) -> Procedure:
    """A procedure that runs ``argv`` in a sandbox with the kit mounted, and takes the bundle
    it writes (unchanged, with the reason, if it fails).

    ``sandbox`` ('auto', 'local' or 'docker'; default: the kit's) is resolved as for
    untrusted code: 'auto' without Docker is refused (RunnerError), 'local' runs only where
    named. The output is read as untrusted: a link, a non-regular file or one over
    MAX_BUNDLE_BYTES is refused without being read, and the refusal is the pair's note."""
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
                where = sandbox if sandbox is not None else kit.sandbox
                data, why = run(_run(argv, kit_dir, where, seconds))
            notes.append(why)
            if data is not None:
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
