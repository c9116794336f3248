"""The operator's HTTP service and its client: submitters upload, everyone reads the public record."""

from service.errors import ServiceError

__all__ = [
    "ServiceError",
]
