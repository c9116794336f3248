"""Errors of the conditions package that callers (and the CLI) are expected to handle."""


class ConditionsError(Exception):
    """A user-facing problem with conditions, commitments or the release cycle.

    The message says what is wrong; ``hint`` says what to do about it.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint
