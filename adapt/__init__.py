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
from adapt._cycle import (
    ADAPTED_DIR,
    PairOutcome,
    access_log_path,
    adapt_cycle,
    adapted_dir,
    export_pair_kit,
    import_pair,
    leak_verdict,
    make_kit,
    read_access_log,
    read_record,
    record_adaptation,
    record_path,
    sealed_tasks,
)
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
    "ADAPTED_DIR",
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
    "PairOutcome",
    "Procedure",
    "SealedRead",
    "access_log_path",
    "adapt_bundle",
    "adapt_cycle",
    "adapted_dir",
    "artifact_diff",
    "command_procedure",
    "declared_procedures",
    "default_procedures",
    "export_kit",
    "export_pair_kit",
    "import_adapted",
    "import_pair",
    "leak_check",
    "leak_verdict",
    "make_kit",
    "ngrams",
    "parse_recipe",
    "public_requests",
    "read_access_log",
    "read_record",
    "rebind_skill",
    "rebind_skills",
    "record_adaptation",
    "record_path",
    "refresh_episodes",
    "rewrite_recipes",
    "sealed_reads",
    "sealed_tasks",
    "task_sha",
]
