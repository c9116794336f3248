"""The metered gateway: every model call of an adaptation procedure, counted against a budget.

Refusal is exact. A call is refused before it is made when it can be predicted to exceed the
budget: one call too many, the wall seconds already spent, or its prompt tokens (counted with
``litellm.token_counter`` before the call). A call whose completion pushes the tokens past the
budget is charged, and then the gateway closes: every later call is refused.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from adapt.errors import AdaptError, BudgetExceeded
from benchmark import endpoint_kwargs, load_litellm
from conditions import Adaptation, ModelEndpoint


class Budget(BaseModel):
    """What one adaptation (one submission × one target) may spend."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tokens: int = Field(ge=0, description="Model tokens, prompt and completion.")
    calls: int = Field(ge=0, description="Model calls.")
    seconds: float = Field(ge=0, description="Wall-clock seconds from the gateway's start.")
    human_minutes: int = Field(default=0, ge=0, description="Declared human minutes allowed.")

    @classmethod
    def from_spec(cls, adaptation: Adaptation) -> Budget:
        """The budget a cycle spec's ``adaptation`` block sets."""
        return cls(
            tokens=adaptation.budget_tokens,
            calls=adaptation.budget_calls,
            seconds=adaptation.budget_seconds,
            human_minutes=adaptation.human_minutes,
        )


class Cost(BaseModel):
    """What an adaptation spent (the adaptation cost of a matrix cell)."""

    model_config = ConfigDict(extra="forbid")

    calls: int = Field(default=0, description="Model calls made (and charged).")
    prompt_tokens: int = Field(default=0, description="Prompt tokens charged.")
    completion_tokens: int = Field(default=0, description="Completion tokens charged.")
    seconds: float = Field(default=0.0, description="Wall seconds from start to finish.")
    human_minutes: int = Field(default=0, description="Human minutes declared.")
    refused: int = Field(default=0, description="Model calls the gateway refused.")
    stopped: str | None = Field(
        default=None, description="Why the gateway closed (the first refusal), if it did."
    )

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


def _prompt_tokens(model: str, messages: list[dict[str, Any]], tools: Any) -> int:
    """Tokens of a request's ``messages`` and ``tools``, by litellm's offline counter."""
    counter = load_litellm().token_counter
    return int(counter(model=model, messages=messages, tools=tools or None))


def _text_tokens(model: str, text: str) -> int:
    """Tokens of a reply's ``text``, by litellm's offline counter."""
    return int(load_litellm().token_counter(model=model, text=text))


class MeteredGateway:
    """The only way an adaptation procedure reaches a model: litellm, through a budget.

    ``complete``/``acomplete`` call ``litellm.completion``/``acompletion`` (the sim answers
    ``sim/<name>`` models offline). ``routed(model)`` gives a litellm model string that sends
    the harness's own calls through this gateway, so trials a procedure runs are metered too.
    """

    def __init__(
        self,
        budget: Budget,
        *,
        clock: Callable[[], float] = time.monotonic,
        endpoints: Mapping[str, ModelEndpoint] | None = None,
    ) -> None:
        self.budget = budget
        self.endpoints = dict(endpoints or {})
        self._clock = clock
        self._start = clock()
        self._end: float | None = None
        self._lock = threading.Lock()
        self._cost = Cost()

    # --- accounting ------------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        """True once a call was refused or the budget is spent: every later call is refused."""
        return self._cost.stopped is not None

    def elapsed(self) -> float:
        """Wall seconds since the gateway started (until ``finish``)."""
        return (self._end if self._end is not None else self._clock()) - self._start

    def cost(self) -> Cost:
        """What was spent so far."""
        with self._lock:
            return self._cost.model_copy(update={"seconds": round(self.elapsed(), 3)})

    def finish(self) -> Cost:
        """Stop the clock and return the cost; later calls are refused."""
        with self._lock:
            if self._end is None:
                self._end = self._clock()
            if self._cost.stopped is None:
                self._cost.stopped = "finished"
        return self.cost()

    def declare_human_minutes(self, minutes: int) -> None:
        """Record ``minutes`` of declared human work (refused over the budget)."""
        if minutes < 0:
            raise AdaptError(f"human minutes must not be negative (got {minutes})")
        with self._lock:
            total = self._cost.human_minutes + minutes
            if total > self.budget.human_minutes:
                raise BudgetExceeded(
                    f"{total} declared human minutes exceed the budget of "
                    f"{self.budget.human_minutes}",
                    "declare the minutes actually spent; the cycle's budget is fixed",
                )
            self._cost.human_minutes = total

    def remaining_seconds(self) -> float:
        """Wall seconds left in the budget (0 when spent)."""
        return max(0.0, self.budget.seconds - self.elapsed())

    def _refuse(self, why: str) -> BudgetExceeded:
        self._cost.refused += 1
        if self._cost.stopped is None:
            self._cost.stopped = why
        return BudgetExceeded(f"model call refused: {why}", "the procedure ends with what it has")

    def _reserve(self, prompt: int) -> None:
        """Admit one call of ``prompt`` predicted prompt tokens, or raise BudgetExceeded."""
        with self._lock:
            c, b = self._cost, self.budget
            if c.stopped is not None:
                raise self._refuse(c.stopped)
            if c.calls + 1 > b.calls:
                raise self._refuse(f"call {c.calls + 1} would exceed the budget of {b.calls} calls")
            if self.elapsed() >= b.seconds:
                raise self._refuse(f"the budget of {b.seconds:g} wall seconds is spent")
            if c.tokens + prompt > b.tokens:
                raise self._refuse(
                    f"{c.tokens} tokens spent + {prompt} prompt tokens would exceed the budget "
                    f"of {b.tokens} tokens"
                )
            c.calls += 1
            c.prompt_tokens += prompt

    def _charge(self, predicted: int, response: Any, model: str) -> None:
        """Replace the predicted prompt tokens by what the response reports; close the gateway
        when that passes the budget."""
        usage = getattr(response, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0) or predicted
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        if not completion:
            message = response.choices[0].message
            text = (message.content or "") + str(getattr(message, "tool_calls", "") or "")
            completion = _text_tokens(model, text) if text else 0
        with self._lock:
            c = self._cost
            c.prompt_tokens += prompt - predicted
            c.completion_tokens += completion
            if c.tokens > self.budget.tokens and c.stopped is None:
                c.stopped = (
                    f"{c.tokens} tokens charged, over the budget of {self.budget.tokens} tokens"
                )

    def _unreserve(self, predicted: int) -> None:
        """A call that failed before a response costs a call but no tokens."""
        with self._lock:
            self._cost.prompt_tokens -= predicted

    def _kwargs(self, model: str, kw: dict[str, Any]) -> dict[str, Any]:
        """``kw`` with a timeout no later than the end of the seconds budget, sent to the
        model's endpoint when the cycle gives it one."""
        left = self.remaining_seconds()
        route = endpoint_kwargs(model, self.endpoints.get(model))
        timeout = min(float(kw.get("timeout") or left), left)
        return {**kw, **route, "timeout": timeout, "max_retries": 0}

    # --- calls -----------------------------------------------------------------------------
    def complete(self, model: str, messages: list[dict[str, Any]], **kw: Any) -> Any:
        """``litellm.completion(model, messages, **kw)``, metered (BudgetExceeded if refused)."""
        predicted = _prompt_tokens(model, messages, kw.get("tools"))
        self._reserve(predicted)
        try:
            response = load_litellm().completion(
                model=model, messages=messages, **self._kwargs(model, kw)
            )
        except Exception:
            self._unreserve(predicted)
            raise
        self._charge(predicted, response, model)
        return response

    async def acomplete(self, model: str, messages: list[dict[str, Any]], **kw: Any) -> Any:
        """``litellm.acompletion(model, messages, **kw)``, metered (BudgetExceeded if refused)."""
        litellm = await asyncio.to_thread(load_litellm)
        predicted = _prompt_tokens(model, messages, kw.get("tools"))
        self._reserve(predicted)
        try:
            response = await litellm.acompletion(
                model=model, messages=messages, **self._kwargs(model, kw)
            )
        except Exception:
            self._unreserve(predicted)
            raise
        self._charge(predicted, response, model)
        return response

    def routed(self, model: str) -> str:
        """A litellm model string that sends calls to ``model`` through this gateway (for the
        harness, which calls litellm itself)."""
        load_litellm()
        from adapt._route import route

        return route(self, model)
