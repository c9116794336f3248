"""Errors of the reports package that callers (and the CLI) are expected to handle."""


class ReportError(Exception):
    """A user-facing problem with metrics, releases or their verification.

    The message says what is wrong; ``hint`` says what to do about it.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint
