"""The operator's HTTP service and its client: submitters upload, all read the public record."""

from service._access import UPLOAD_EVENT, AccessLog
from service._accounts import ACCOUNT_EVENT, TOKEN_PREFIX, Account, Accounts, Role
from service._adaptation import (
    extract_kit,
    import_upload,
    kit_archive,
    list_pairs,
    own_submissions,
)
from service._app import create_app
from service._client import ServiceClient
from service._devkit import DevKit, build_dev_kit, dev_seed, public_spec, write_dev_kit
from service._limits import ServiceLimits
from service._proxies import trusted_proxies
from service._pull import PulledRelease, ReleaseFile, pull_release, release_names
from service._server import DEFAULT_HOST, DEFAULT_PORT, running_server, serve
from service._token import TOKEN_ENV, TOKEN_FILE_ENV, load_token, token_path
from service.errors import ServiceError

__all__ = [
    "ACCOUNT_EVENT",
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "TOKEN_ENV",
    "TOKEN_FILE_ENV",
    "TOKEN_PREFIX",
    "UPLOAD_EVENT",
    "AccessLog",
    "Account",
    "Accounts",
    "DevKit",
    "PulledRelease",
    "ReleaseFile",
    "Role",
    "ServiceClient",
    "ServiceError",
    "ServiceLimits",
    "build_dev_kit",
    "create_app",
    "dev_seed",
    "extract_kit",
    "import_upload",
    "kit_archive",
    "list_pairs",
    "load_token",
    "own_submissions",
    "public_spec",
    "pull_release",
    "release_names",
    "running_server",
    "serve",
    "token_path",
    "trusted_proxies",
    "write_dev_kit",
]
