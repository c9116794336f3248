"""Errors of the drift package that callers (and the CLI) are expected to handle."""


class DriftError(Exception):
    """A user-facing problem with tool lists, operators or interface versions.

    The message says what is wrong; ``hint`` says what to do about it.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class ToolCallError(Exception):
    """A tool call that the served interface rejects (unknown tool, bad arguments).

    Not a user error: it is returned to the agent as the tool's error result.
    """
