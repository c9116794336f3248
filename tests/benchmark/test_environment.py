"""A trial environment: schema validation, the oracle, mapping to the canonical backend."""

import asyncio
import json
from pathlib import Path

import pytest

from benchmark import (
    BackendUnavailable,
    McpBackend,
    TrialEnvironment,
    family,
    served_interface,
)
from drift import ToolCall
from tests.benchmark._helpers import start_backend

FAMILY = family("support_ops")
TASK = FAMILY.tasks("sealed", 1, 21)[0]
REFUND = TASK.reference_calls[0]


async def _env(tmp_path: Path, version: str) -> tuple[TrialEnvironment, McpBackend]:
    backend = await start_backend(FAMILY, tmp_path)
    env = TrialEnvironment(FAMILY, TASK, served_interface("support-ops", version), backend)
    await env.start()
    return env, backend


def test_remembered_field_after_rename_is_a_tool_error_without_effect(tmp_path: Path) -> None:
    async def go() -> None:
        env, backend = await _env(tmp_path, "support-ops@2-rename")
        result = await env.call(REFUND)  # still says order_id
        assert result.is_error and "order_id" in result.content
        args = dict(REFUND.arguments)
        ok = await env.call(
            ToolCall(name="issue_refund", arguments={"order_number": args.pop("order_id"), **args})
        )
        assert not ok.is_error and json.loads(ok.content)["amount_cents"] == args["amount_cents"]
        assert env.critical == []
        await env.close()
        await backend.close()

    asyncio.run(go())


def test_unit_misuse_takes_effect_and_is_flagged(tmp_path: Path) -> None:
    async def go() -> None:
        env, backend = await _env(tmp_path, "support-ops@2-units")
        args = {k: v for k, v in REFUND.arguments.items() if k != "amount_cents"}
        cents = REFUND.arguments["amount_cents"]
        result = await env.call(ToolCall(name="issue_refund", arguments={**args, "amount": cents}))
        assert not result.is_error  # silent: the backend accepts it
        assert len(env.critical) == 1
        close = TASK.reference_calls[1]
        await env.call(close)
        verdict = await env.verify()
        assert not verdict.passed
        await env.close()
        await backend.close()

    asyncio.run(go())


def test_a_start_failing_after_its_session_opened_closes_it_and_the_trial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Ctrl-C of `vwt adapt` in a loaded CI: a trial cancelled between opening its session
    to the server and serving the drifted interface left that session open, for the loop to
    close at its end in another task (a traceback from anyio)."""
    opened: list[str] = []
    loop_errors: list[str] = []

    class Failing:
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def connect(self) -> object:
            raise RuntimeError("the proxy could not start")

    monkeypatch.setattr("benchmark._environment.DriftProxy", Failing)

    async def go() -> None:
        asyncio.get_running_loop().set_exception_handler(
            lambda loop, context: loop_errors.append(context["message"])
        )
        backend = await start_backend(FAMILY, tmp_path)
        open_trial = backend.open_trial

        async def recording(state: dict[str, object], family: str | None = None) -> str:
            opened.append(await open_trial(state, family))
            return opened[-1]

        backend.open_trial = recording  # type: ignore[method-assign]
        env = TrialEnvironment(
            FAMILY, TASK, served_interface("support-ops", "support-ops@1"), backend
        )
        with pytest.raises(RuntimeError, match="could not start"):
            async with env:
                pass
        with pytest.raises(BackendUnavailable, match="control request 'dump' failed"):
            await backend.dump(opened[0])  # the trial was dropped
        await backend.close()

    asyncio.run(go())
    assert len(opened) == 1
    assert loop_errors == []  # no session left for the loop to close
