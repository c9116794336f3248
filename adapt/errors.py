"""Errors of the adaptation package that callers (and the CLI) are expected to handle."""


class AdaptError(Exception):
    """A user-facing problem with an adaptation: its kit, procedure or adapted bundle.

    The message says what is wrong; ``hint`` says what to do about it.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class BudgetExceeded(AdaptError):
    """The metered gateway refused a model call: it would exceed, or the last one exceeded,
    the adaptation budget. The procedure ends with what it has."""


class SealedRead(AdaptError):
    """A procedure asked the adaptation kit for a task it does not serve (a sealed one, or
    any other task outside the target's adaptation sample and the public examples)."""


class KitNotExported(AdaptError):
    """A hand adaptation was imported for a pair whose kit was never exported: there is no
    access log to record with it."""


class AdaptInterrupted(AdaptError):
    """``adapt_cycle`` was interrupted (Ctrl-C or SIGTERM): the pairs recorded stay, the
    pairs in flight stopped; running it again adapts the rest."""
