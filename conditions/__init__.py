"""Conditions, target generation, commitments, reveals, verification and the release cycle."""

from conditions._commitment import (
    CommitmentSecret,
    CommitmentStatement,
    CommittedEvaluation,
    CommittedFamilies,
    Leaf,
    SignedCommitment,
)
from conditions._condition import AXES, Condition, ModelAxis, TaskFamilyAxis, keyed_condition_id
from conditions._cycle import ADAPTATION_EVENT, TRIAL_MACS, Cycle
from conditions._home import CycleHome
from conditions._keys import PASSPHRASE_ENV, fingerprint, verify_signature
from conditions._ledger import GENESIS, Ledger, LedgerCheckpoint, LedgerEntry, LedgerMark
from conditions._merkle import inclusion_proof, merkle_root, verify_inclusion
from conditions._reveal import RevealedLeaf, RevealStatement, SignedReveal
from conditions._spec import (
    PUBLIC_SEEDS,
    Adaptation,
    Catalogue,
    CatalogueModel,
    CycleSpec,
    Evaluation,
    FamilyFolder,
    FamilyRoles,
    ModelEndpoint,
    fresh_seed,
    parse_yaml,
    read_family_folder,
    spec_family_folders,
)
from conditions._state import NEXT_STEP, CycleState
from conditions._targets import (
    GenerationManifest,
    Target,
    TargetSet,
    generate_targets,
    plan_targets,
)
from conditions._verify import (
    RevealedCondition,
    VerifiedReveal,
    verify_commitment,
    verify_commitment_and_reveal,
)
from conditions.errors import ConditionsError

__all__ = [
    "ADAPTATION_EVENT",
    "AXES",
    "GENESIS",
    "NEXT_STEP",
    "PASSPHRASE_ENV",
    "PUBLIC_SEEDS",
    "TRIAL_MACS",
    "Adaptation",
    "Catalogue",
    "CatalogueModel",
    "CommitmentSecret",
    "CommitmentStatement",
    "CommittedEvaluation",
    "CommittedFamilies",
    "Condition",
    "ConditionsError",
    "Cycle",
    "CycleHome",
    "CycleSpec",
    "CycleState",
    "Evaluation",
    "FamilyFolder",
    "FamilyRoles",
    "GenerationManifest",
    "Leaf",
    "Ledger",
    "LedgerCheckpoint",
    "LedgerEntry",
    "LedgerMark",
    "ModelAxis",
    "ModelEndpoint",
    "RevealStatement",
    "RevealedCondition",
    "RevealedLeaf",
    "SignedCommitment",
    "SignedReveal",
    "Target",
    "TargetSet",
    "TaskFamilyAxis",
    "VerifiedReveal",
    "fingerprint",
    "fresh_seed",
    "generate_targets",
    "inclusion_proof",
    "keyed_condition_id",
    "merkle_root",
    "parse_yaml",
    "plan_targets",
    "read_family_folder",
    "spec_family_folders",
    "verify_commitment",
    "verify_commitment_and_reveal",
    "verify_inclusion",
    "verify_signature",
]
