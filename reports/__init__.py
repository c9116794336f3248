"""Metrics and statistics of the transfer matrix, the signed release, and its rendering."""

from reports._adapted import (
    AdaptationCost,
    AdaptedCell,
    ArtifactChange,
    LeakVerdict,
    ReleasedAdaptation,
)
from reports._calls import (
    CALLS_DIR,
    MAX_CALLS_BYTES,
    call_file,
    calls_name,
    check_calls,
    read_calls,
)
from reports._cell import (
    CellMetrics,
    CriticalTest,
    GainDifference,
    IntervalMethod,
    LeaveOneOut,
    SignTest,
    TestFamily,
    Variation,
    apply_fdr,
    cell_metrics,
    gain_difference,
    method_text,
)
from reports._compare import CellMove, RankChange, ReleaseComparison, Renamed, compare_releases
from reports._dev import dev_trials, home_trials, is_dev_home, write_dev_html
from reports._export import EXPORT_FORMATS, export_release
from reports._flags import Flag, cell_flags
from reports._html import REPORT_FILE, HtmlReport, write_html_report
from reports._interval import Interval
from reports._load import LoadedRelease, load_release
from reports._matrix import Cell, build_matrix
from reports._plan import (
    DEFAULT_BASELINE,
    ConditionPlan,
    CyclePlan,
    Figures,
    measured_baselines,
    pilot_records,
    plan_cycle,
)
from reports._power import (
    minimum_detectable_gain,
    planned_se,
    task_difference_sd,
    tasks_for_half_width,
)
from reports._published import ARTIFACTS_DIR, INTERFACES_DIR
from reports._release import (
    RELEASE_FILE,
    TRIALS_FILE,
    FileRef,
    ReleasedCondition,
    ReleasedSubmission,
    ReleaseStatement,
    SignedRelease,
    build_release,
)
from reports._render import compact_table, condition_label, render_release, submission_table
from reports._render_compare import render_comparison
from reports._replay import ReleaseSource
from reports._retention import Retention, RetentionStatus
from reports._stats import benjamini_hochberg, binomial_sign_test, pass_hat_k
from reports._stats_arms import OUTCOMES, ArmOutcomes, ArmSummary, TaskTrials
from reports._summary import PhaseCost, phase_costs
from reports._traces import MAX_TRACE_BYTES, TRACES_DIR, read_trace, trace_name
from reports._trials import (
    TrialGroup,
    TrialSet,
    find_trial,
    group_trials,
    release_trials,
    select_trials,
    store_trials,
    trial_reason,
)
from reports._verify import MAX_TRIALS_BYTES, VerifiedRelease, read_release, verify_release
from reports.errors import ReportError

__all__ = [
    "ARTIFACTS_DIR",
    "CALLS_DIR",
    "DEFAULT_BASELINE",
    "EXPORT_FORMATS",
    "INTERFACES_DIR",
    "MAX_CALLS_BYTES",
    "MAX_TRACE_BYTES",
    "MAX_TRIALS_BYTES",
    "OUTCOMES",
    "RELEASE_FILE",
    "REPORT_FILE",
    "TRACES_DIR",
    "TRIALS_FILE",
    "AdaptationCost",
    "AdaptedCell",
    "ArmOutcomes",
    "ArmSummary",
    "ArtifactChange",
    "Cell",
    "CellMetrics",
    "CellMove",
    "ConditionPlan",
    "CriticalTest",
    "CyclePlan",
    "Figures",
    "FileRef",
    "Flag",
    "GainDifference",
    "HtmlReport",
    "Interval",
    "IntervalMethod",
    "LeakVerdict",
    "LeaveOneOut",
    "LoadedRelease",
    "PhaseCost",
    "RankChange",
    "ReleaseComparison",
    "ReleaseSource",
    "ReleaseStatement",
    "ReleasedAdaptation",
    "ReleasedCondition",
    "ReleasedSubmission",
    "Renamed",
    "ReportError",
    "Retention",
    "RetentionStatus",
    "SignTest",
    "SignedRelease",
    "TaskTrials",
    "TestFamily",
    "TrialGroup",
    "TrialSet",
    "Variation",
    "VerifiedRelease",
    "apply_fdr",
    "benjamini_hochberg",
    "binomial_sign_test",
    "build_matrix",
    "build_release",
    "call_file",
    "calls_name",
    "cell_flags",
    "cell_metrics",
    "check_calls",
    "compact_table",
    "compare_releases",
    "condition_label",
    "dev_trials",
    "export_release",
    "find_trial",
    "gain_difference",
    "group_trials",
    "home_trials",
    "is_dev_home",
    "load_release",
    "measured_baselines",
    "method_text",
    "minimum_detectable_gain",
    "pass_hat_k",
    "phase_costs",
    "pilot_records",
    "plan_cycle",
    "planned_se",
    "read_calls",
    "read_release",
    "read_trace",
    "release_trials",
    "render_comparison",
    "render_release",
    "select_trials",
    "store_trials",
    "submission_table",
    "task_difference_sd",
    "tasks_for_half_width",
    "trace_name",
    "trial_reason",
    "verify_release",
    "write_dev_html",
    "write_html_report",
]
