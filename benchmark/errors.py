"""Errors of the benchmark package that callers (and the CLI) are expected to handle."""


class BenchmarkError(Exception):
    """A user-facing problem with tasks, environments, the harness or models.

    The message says what is wrong; ``hint`` says what to do about it.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint
