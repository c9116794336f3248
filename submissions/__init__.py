"""Submission bundles: manifest, validation, limits, content-addressed storage, receipts."""

from submissions._bundle import (
    Bundle,
    load_bundle,
    load_bundle_dir,
    read_bundle_file,
    write_bundle,
)
from submissions._bundle_dir import (
    SKILLS_DIR,
    contract_body,
    convert_bundle_dir,
    skill_bundle,
    write_bundle_dir,
)
from submissions._limits import (
    LIMITS_HINT,
    MAX_ARTIFACT_BYTES,
    MAX_ARTIFACTS,
    MAX_BUNDLE_BYTES,
    MAX_MANIFEST_BYTES,
    MAX_PATH_CHARS,
    MAX_SKILL_FILES,
)
from submissions._listing import ListedArtifact, ListedSubmission, list_submissions
from submissions._manifest import (
    MANIFEST_FILE,
    AdaptationDeclaration,
    ArtifactEntry,
    ArtifactKind,
    BundleManifest,
    Name,
)
from submissions._receipt import Receipt, ReceiptStatement, read_receipt
from submissions._reference import REFERENCE_NAMES, reference_bundles, reference_dir
from submissions._skill_folder import check_skill, read_skill_folder
from submissions._store import (
    SUBMISSION_EVENT,
    BundleStore,
    submit,
    submitted_bundles,
)
from submissions._text import shown
from submissions.errors import SubmissionError

__all__ = [
    "LIMITS_HINT",
    "MANIFEST_FILE",
    "MAX_ARTIFACTS",
    "MAX_ARTIFACT_BYTES",
    "MAX_BUNDLE_BYTES",
    "MAX_MANIFEST_BYTES",
    "MAX_PATH_CHARS",
    "MAX_SKILL_FILES",
    "REFERENCE_NAMES",
    "SKILLS_DIR",
    "SUBMISSION_EVENT",
    "AdaptationDeclaration",
    "ArtifactEntry",
    "ArtifactKind",
    "Bundle",
    "BundleManifest",
    "BundleStore",
    "ListedArtifact",
    "ListedSubmission",
    "Name",
    "Receipt",
    "ReceiptStatement",
    "SubmissionError",
    "check_skill",
    "contract_body",
    "convert_bundle_dir",
    "list_submissions",
    "load_bundle",
    "load_bundle_dir",
    "read_bundle_file",
    "read_receipt",
    "read_skill_folder",
    "reference_bundles",
    "reference_dir",
    "shown",
    "skill_bundle",
    "submit",
    "submitted_bundles",
    "write_bundle",
    "write_bundle_dir",
]
