"""Task families, environments, verifiers, the drift oracle, the harness and the sim models."""

import os

# litellm (imported lazily, by load_litellm) fetches a price map at import unless
# told not to; vwt works offline.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmark._call_log import CallLog, current_log, first_difference, recording
from benchmark._calls import (
    CALLS_VERSION,
    CachedReply,
    CacheEntry,
    CallDocument,
    CallReply,
    CallRequest,
    CallUsage,
    ExpandedRequest,
    ModelCall,
    ReplayCall,
    canonical,
    expand,
)
from benchmark._check import check_cycle_spec
from benchmark._endpoint import endpoint_kwargs, require_endpoint_keys
from benchmark._environment import ToolResult, TrialEnvironment, openai_tool, tool_result
from benchmark._folder_family import FolderFamily
from benchmark._folder_load import family_folders, load_family_folder
from benchmark._limits import LIMIT_ENV, SHARE_ENV, Limits, PerProvider
from benchmark._mcp_backend import (
    IMAGE_SITE,
    SERVERS_ENV,
    BackendCallError,
    BackendTrial,
    BackendUnavailable,
    McpBackend,
    backend_timeout,
    check_site_for,
    host_site,
    mcp_servers_dir,
    server_site,
)
from benchmark._model_check import check_model
from benchmark._models import (
    ModelCallFailed,
    ModelPolicy,
    Usage,
    call_usage,
    complete,
    load_litellm,
)
from benchmark._oracle import CriticalFlag, check_call
from benchmark._plugins import ENTRY_POINTS_ENV, PluginOrigin, Plugins, entry_points_to_hand_on
from benchmark._prices import ModelPrice, model_price, usage_cost
from benchmark._redteam import (
    FamilyRedTeam,
    RedTeamFailure,
    RedTeamReport,
    cycle_families,
    redteam,
    require_gate,
)
from benchmark._registry import (
    FAMILIES,
    FAMILY_GROUP,
    FOLDERS_ENV,
    default_cycle_spec_path,
    family,
    family_for_env,
    family_origin,
    folders_to_hand_on,
    full_cycle_spec_path,
    interface_version,
    serve,
    served_interface,
    use_family_folders,
)
from benchmark._sandbox_types import (
    ExternalServer,
    GateSandbox,
    SandboxFactory,
    ServerProcess,
    ServerSandbox,
)
from benchmark._secrets import REDACTED, mentions, scrub, secret_values
from benchmark._task import Family, Planted, Task, VerifierResult, stable_int
from benchmark._trial import Outcome, TrialResult, classify, run_trial
from benchmark._wires import WIRE_FORMATS, wire_format
from benchmark.errors import BenchmarkError

__all__ = [
    "CALLS_VERSION",
    "ENTRY_POINTS_ENV",
    "FAMILIES",
    "FAMILY_GROUP",
    "FOLDERS_ENV",
    "IMAGE_SITE",
    "LIMIT_ENV",
    "REDACTED",
    "SERVERS_ENV",
    "SHARE_ENV",
    "WIRE_FORMATS",
    "BackendCallError",
    "BackendTrial",
    "BackendUnavailable",
    "BenchmarkError",
    "CacheEntry",
    "CachedReply",
    "CallDocument",
    "CallLog",
    "CallReply",
    "CallRequest",
    "CallUsage",
    "CriticalFlag",
    "ExpandedRequest",
    "ExternalServer",
    "Family",
    "FamilyRedTeam",
    "FolderFamily",
    "GateSandbox",
    "Limits",
    "McpBackend",
    "ModelCall",
    "ModelCallFailed",
    "ModelPolicy",
    "ModelPrice",
    "Outcome",
    "PerProvider",
    "Planted",
    "PluginOrigin",
    "Plugins",
    "RedTeamFailure",
    "RedTeamReport",
    "ReplayCall",
    "SandboxFactory",
    "ServerProcess",
    "ServerSandbox",
    "Task",
    "ToolResult",
    "TrialEnvironment",
    "TrialResult",
    "Usage",
    "VerifierResult",
    "backend_timeout",
    "call_usage",
    "canonical",
    "check_call",
    "check_cycle_spec",
    "check_model",
    "check_site_for",
    "classify",
    "complete",
    "current_log",
    "cycle_families",
    "default_cycle_spec_path",
    "endpoint_kwargs",
    "entry_points_to_hand_on",
    "expand",
    "family",
    "family_folders",
    "family_for_env",
    "family_origin",
    "first_difference",
    "folders_to_hand_on",
    "full_cycle_spec_path",
    "host_site",
    "interface_version",
    "load_family_folder",
    "load_litellm",
    "mcp_servers_dir",
    "mentions",
    "model_price",
    "openai_tool",
    "recording",
    "redteam",
    "require_endpoint_keys",
    "require_gate",
    "run_trial",
    "scrub",
    "secret_values",
    "serve",
    "served_interface",
    "server_site",
    "stable_int",
    "tool_result",
    "usage_cost",
    "use_family_folders",
    "wire_format",
]
