"""Adaptation: the metered gateway, the kit and its access log, the procedures, adapted
bundles and the leak gate (issue 11)."""

from adapt._access import (
    ADAPT_SPLIT,
    AccessEntry,
    AccessLog,
    AdaptationKit,
    sealed_reads,
    task_sha,
)
from adapt._bundle import AdaptedBundle, ArtifactDiff, artifact_diff
from adapt._command import OUTPUT, command_procedure
from adapt._declared import declared_procedures
from adapt._human import KIT_FILE, export_kit, import_adapted
from adapt._leak import (
    NGRAM,
    PUBLIC_SAMPLE,
    THRESHOLD,
    LeakMatch,
    LeakReport,
    leak_check,
    ngrams,
    public_requests,
)
from adapt._meter import Budget, Cost, MeteredGateway
from adapt._procedures import (
    PROCEDURES,
    Procedure,
    adapt_bundle,
    default_procedures,
    parse_recipe,
    rebind_skills,
    refresh_episodes,
    rewrite_recipes,
)
from adapt._rebind import rebind_skill
from adapt.errors import AdaptError, BudgetExceeded, SealedRead

__all__ = [
    "ADAPT_SPLIT",
    "KIT_FILE",
    "NGRAM",
    "OUTPUT",
    "PROCEDURES",
    "PUBLIC_SAMPLE",
    "THRESHOLD",
    "AccessEntry",
    "AccessLog",
    "AdaptError",
    "AdaptationKit",
    "AdaptedBundle",
    "ArtifactDiff",
    "Budget",
    "BudgetExceeded",
    "Cost",
    "LeakMatch",
    "LeakReport",
    "MeteredGateway",
    "Procedure",
    "SealedRead",
    "adapt_bundle",
    "artifact_diff",
    "command_procedure",
    "declared_procedures",
    "default_procedures",
    "export_kit",
    "import_adapted",
    "leak_check",
    "ngrams",
    "parse_recipe",
    "public_requests",
    "rebind_skill",
    "rebind_skills",
    "refresh_episodes",
    "rewrite_recipes",
    "sealed_reads",
    "task_sha",
]
