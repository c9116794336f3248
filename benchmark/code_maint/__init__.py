"""The code-maintenance task family: small Python projects broken by an upgrade of the
internal library they pin (a renamed function, a changed unit, a documented behaviour change
their tests trip on, renamed settings keys), its tools, backend and verifier."""

from benchmark.code_maint._family import CodeMaintenance
from benchmark.code_maint._generator import CALL_KINDS, KINDS
from benchmark.code_maint._tools import ENV_ID, base_tools, interface_versions
from benchmark.code_maint._verifier import CHECKS

__all__ = [
    "CALL_KINDS",
    "CHECKS",
    "ENV_ID",
    "KINDS",
    "CodeMaintenance",
    "base_tools",
    "interface_versions",
]
