"""What adapts a bundle: the procedures its manifest declares, or the defaults for its kinds."""

from __future__ import annotations

from adapt._command import command_procedure
from adapt._procedures import Procedure, default_procedures
from submissions import Bundle


def declared_procedures(bundle: Bundle, *, sandbox: str | None = None) -> list[str | Procedure]:
    """What adapts ``bundle``: the procedures its manifest declares (built-in ones by name, in
    order, then its own command, run in ``sandbox``, default the kit's), or, without one,
    ``default_procedures``. A declaration with neither asks for no adaptation."""
    declared = bundle.manifest.adaptation
    if declared is None:
        return list(default_procedures(bundle))
    steps: list[str | Procedure] = list(declared.procedures)
    if declared.command:
        steps.append(command_procedure(list(declared.command), sandbox=sandbox))
    return steps
