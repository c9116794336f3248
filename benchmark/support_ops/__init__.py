"""The support-operations task family: refunds, account changes and ticket resolution over
one simulated support system, its tools, backend and verifier."""

from benchmark.support_ops._family import SupportOps
from benchmark.support_ops._generator import ACCOUNT_KINDS, KINDS, REFUND_KINDS, TICKET_KINDS
from benchmark.support_ops._tools import ENV_ID, base_tools, interface_versions

__all__ = [
    "ACCOUNT_KINDS",
    "ENV_ID",
    "KINDS",
    "REFUND_KINDS",
    "TICKET_KINDS",
    "SupportOps",
    "base_tools",
    "interface_versions",
]
