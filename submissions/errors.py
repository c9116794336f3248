"""Errors of the submissions package that callers (and the CLI) are expected to handle."""


class SubmissionError(Exception):
    """A user-facing problem with bundles and submissions.

    The message says what is wrong; ``hint`` says what to do about it.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint
