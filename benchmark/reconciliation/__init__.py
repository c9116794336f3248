"""The data-reconciliation task family: matching payments to invoices, deduplicating records
and reconciling a ledger against a bank statement, over one simulated set of books, its tools,
backend and verifier."""

from benchmark.reconciliation._family import Reconciliation
from benchmark.reconciliation._generator import KINDS, LEDGER_KINDS, MATCH_KINDS, RECORD_KINDS
from benchmark.reconciliation._tools import ENV_ID, base_tools, interface_versions
from benchmark.reconciliation._verifier import CHECKS

__all__ = [
    "CHECKS",
    "ENV_ID",
    "KINDS",
    "LEDGER_KINDS",
    "MATCH_KINDS",
    "RECORD_KINDS",
    "Reconciliation",
    "base_tools",
    "interface_versions",
]
