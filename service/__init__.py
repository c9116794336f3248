"""The operator's HTTP service and its client: submitters upload, everyone reads the public record."""

from service._accounts import ACCOUNT_EVENT, TOKEN_PREFIX, Account, Accounts, Role
from service.errors import ServiceError

__all__ = [
    "ACCOUNT_EVENT",
    "TOKEN_PREFIX",
    "Account",
    "Accounts",
    "Role",
    "ServiceError",
]
