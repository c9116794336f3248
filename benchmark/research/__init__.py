"""The research-evidence task family: questions answered from a frozen, generated document
collection with claims that cite it, its tools, backend and rule-based verifier (no model
judge)."""

from benchmark.research._family import ResearchEvidence
from benchmark.research._generator import KINDS
from benchmark.research._tools import ENV_ID, base_tools, interface_versions

__all__ = ["ENV_ID", "KINDS", "ResearchEvidence", "base_tools", "interface_versions"]
