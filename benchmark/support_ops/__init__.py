"""The support-operations task family (refunds), its tools, backend and verifier."""

from benchmark.support_ops._family import SupportOps
from benchmark.support_ops._tools import ENV_ID, base_tools, interface_versions

__all__ = ["ENV_ID", "SupportOps", "base_tools", "interface_versions"]
