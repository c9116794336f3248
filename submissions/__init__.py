"""Submission bundles: manifest, validation, content-addressed storage, receipts, references."""

from submissions._bundle import (
    Bundle,
    load_bundle_dir,
    read_bundle_file,
    write_bundle,
)
from submissions._manifest import MANIFEST_FILE, ArtifactEntry, ArtifactKind, BundleManifest
from submissions._reference import REFERENCE_NAMES, reference_bundles, reference_dir
from submissions._store import (
    SUBMISSION_EVENT,
    BundleStore,
    Receipt,
    ReceiptStatement,
    submit,
    submitted_bundles,
)
from submissions.errors import SubmissionError

__all__ = [
    "MANIFEST_FILE",
    "REFERENCE_NAMES",
    "SUBMISSION_EVENT",
    "ArtifactEntry",
    "ArtifactKind",
    "Bundle",
    "BundleManifest",
    "BundleStore",
    "Receipt",
    "ReceiptStatement",
    "SubmissionError",
    "load_bundle_dir",
    "read_bundle_file",
    "reference_bundles",
    "reference_dir",
    "submit",
    "submitted_bundles",
    "write_bundle",
]
