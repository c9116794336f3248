"""Errors of the service package: what a request or a client call did wrong, as HTTP sees it."""


class ServiceError(Exception):
    """A user-facing problem with the operator's HTTP service or a call to it.

    The message says what is wrong; ``hint`` says what to do about it. ``status`` is the HTTP
    status the service answers with (a client raising it for a refused call keeps the server's
    status), ``code`` a stable machine-readable word such as ``"unauthorized"``.
    """

    def __init__(
        self, message: str, hint: str | None = None, *, status: int = 400, code: str = "bad_request"
    ) -> None:
        super().__init__(message)
        self.hint = hint
        self.status = status
        self.code = code
