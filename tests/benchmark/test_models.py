"""The model gateway: retries transient errors, fails the call on any other, never prints."""

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import httpx
import litellm
import pytest
from litellm import CustomLLM

from benchmark import BenchmarkError, ModelCallFailed, ModelPolicy, Usage, complete

FAST = ModelPolicy(timeout_s=5, attempts=3, backoff_s=0.01)


class _Scripted(CustomLLM):
    """Raises ``errors`` in order, then answers (or returns ``reply`` as given)."""

    def __init__(self, errors: list[Exception], reply: Any = None) -> None:
        super().__init__()
        self.errors, self.reply, self.calls = errors, reply, 0

    async def acompletion(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.calls <= len(self.errors):
            raise self.errors[self.calls - 1]
        if self.reply is not None:
            return self.reply
        return litellm.ModelResponse(
            choices=[{"message": {"role": "assistant", "content": "done"}}],
            usage={"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
        )


@pytest.fixture
def scripted() -> Any:
    def register(errors: list[Exception], reply: Any = None) -> _Scripted:
        handler = _Scripted(errors, reply)
        others = [e for e in litellm.custom_provider_map if e["provider"] != "scripted"]
        litellm.custom_provider_map = [*others, {"provider": "scripted", "custom_handler": handler}]
        return handler

    yield register
    litellm.custom_provider_map = [
        e for e in litellm.custom_provider_map if e["provider"] != "scripted"
    ]


def _unavailable() -> Exception:
    return litellm.exceptions.ServiceUnavailableError(
        message="overloaded", llm_provider="scripted", model="scripted/m"
    )


def _complete(policy: ModelPolicy = FAST) -> tuple[dict[str, Any], Usage]:
    usage = Usage()
    msgs = [{"role": "user", "content": "hi"}]
    reply = asyncio.run(complete("scripted/m", msgs, [], seed=1, usage=usage, policy=policy))
    return reply, usage


def test_transient_errors_are_retried(scripted: Any) -> None:
    handler = scripted([_unavailable(), _unavailable()])
    reply, usage = _complete()
    assert reply["content"] == "done" and handler.calls == 3 and usage.calls == 1


def test_persistent_errors_fail_after_the_attempts_naming_the_class(scripted: Any) -> None:
    handler = scripted([_unavailable()] * 10)
    with pytest.raises(ModelCallFailed) as failed:
        _complete(FAST.model_copy(update={"attempts": 2}))
    assert handler.calls == 2
    assert str(failed.value).startswith("ServiceUnavailableError: scripted/m: ")
    assert str(failed.value).endswith("(after 2 attempts)")


@pytest.mark.parametrize(
    ("error", "name"),
    [
        (litellm.exceptions.NotFoundError("no such model", "scripted/m", "scripted"), "NotFound"),
        (litellm.exceptions.BadRequestError("bad", "scripted/m", "scripted"), "BadRequest"),
        (litellm.exceptions.AuthenticationError("bad key", "scripted", "scripted/m"), "Auth"),
        (
            litellm.exceptions.PermissionDeniedError(
                "no",
                "scripted",
                "scripted/m",
                response=httpx.Response(403, request=httpx.Request("POST", "http://x")),
            ),
            "PermissionDenied",
        ),
    ],
    ids=["404", "400", "401", "403"],
)
def test_a_non_retriable_error_fails_the_call_at_once(
    scripted: Any, error: Exception, name: str
) -> None:
    handler = scripted([error])
    with pytest.raises(ModelCallFailed) as failed:
        _complete()
    assert handler.calls == 1
    assert str(failed.value).startswith(f"{type(error).__name__}: scripted/m: ")
    assert type(error).__name__.startswith(name)


def test_a_reply_that_cannot_be_read_fails_the_call_naming_the_class(scripted: Any) -> None:
    handler = scripted([], reply=litellm.ModelResponse(choices=[]))
    with pytest.raises(ModelCallFailed, match=r"^IndexError: scripted/m: "):
        _complete()
    assert handler.calls == 1


def test_the_policy_defaults_and_its_environment() -> None:
    assert ModelPolicy.from_env(environ={}) == ModelPolicy(timeout_s=60, attempts=3)
    assert ModelPolicy.from_env(attempts=5, environ={}).attempts == 5
    env = {"VWT_MODEL_TIMEOUT_S": "7.5", "VWT_MODEL_ATTEMPTS": "2"}
    policy = ModelPolicy.from_env(attempts=5, environ=env)
    assert (policy.timeout_s, policy.attempts) == (7.5, 2)
    default = ModelPolicy()
    worst = default.attempts * default.timeout_s + sum(default.longest_delay(r) for r in range(2))
    assert worst < 6 * 60  # a hung provider costs a trial minutes, not more


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"VWT_MODEL_TIMEOUT_S": "soon"}, "VWT_MODEL_TIMEOUT_S='soon'"),
        ({"VWT_MODEL_TIMEOUT_S": "0"}, "VWT_MODEL_TIMEOUT_S='0'"),
        ({"VWT_MODEL_ATTEMPTS": "0"}, "VWT_MODEL_ATTEMPTS='0'"),
        ({"VWT_MODEL_ATTEMPTS": "2.5"}, "VWT_MODEL_ATTEMPTS='2.5'"),
    ],
)
def test_a_malformed_setting_is_named(env: dict[str, str], says: str) -> None:
    with pytest.raises(BenchmarkError, match=says) as bad:
        ModelPolicy.from_env(environ=env)
    assert bad.value.hint and "unset them" in bad.value.hint


def test_failed_calls_print_no_litellm_banner_on_stdout(tmp_path: Path) -> None:
    """In a fresh process, as in a worker: litellm loaded by the gateway, then calls that
    fail in litellm's error mapping (a 404 from a provider, a model without a provider)."""
    script = tmp_path / "fail.py"
    script.write_text(
        textwrap.dedent(
            """
            import asyncio
            import litellm
            from litellm import CustomLLM
            from benchmark import ModelCallFailed, ModelPolicy, Usage, complete

            class NotFound(CustomLLM):
                async def acompletion(self, *args, **kwargs):
                    raise litellm.exceptions.NotFoundError("gone", "nf/m", "nf")

            litellm.custom_provider_map = [{"provider": "nf", "custom_handler": NotFound()}]
            for model in ("nf/m", "acme-2"):
                try:
                    asyncio.run(complete(model, [{"role": "user", "content": "x"}], [],
                                         seed=0, usage=Usage(), policy=ModelPolicy()))
                except ModelCallFailed as e:
                    print("failed:", str(e).split(":")[0])
            """
        )
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["failed: NotFoundError", "failed: BadRequestError"]
    for banner in ("Give Feedback", "Provider List", "LiteLLM.Info"):
        assert banner not in done.stdout + done.stderr


_FIRST_CALL = """
import asyncio, json, sys, threading
from benchmark import ModelPolicy, Usage, complete

began = threading.Event()  # litellm's import began
served = threading.Event()  # the loop ran another task while the import was under way
seen = {"before": "litellm" in sys.modules}

class Watch:
    def find_spec(self, name, path=None, target=None):
        if name == "litellm" and not began.is_set():
            began.set()
            # the import goes on once the loop has served another task: imported on the loop
            # itself, it waits for that in vain
            seen["served"] = served.wait(120)
        return None

sys.meta_path.insert(0, Watch())

async def main():
    async def other():
        while not began.is_set():
            await asyncio.sleep(0.01)
        served.set()

    waiting = asyncio.create_task(other())
    await complete("sim/acme-2", [{"role": "user", "content": "Refund ORD-1"}], [],
                   seed=0, usage=Usage(), policy=ModelPolicy())
    waiting.cancel()
    seen["after"] = "litellm" in sys.modules
    print(json.dumps(seen))

asyncio.run(main())
"""


def test_a_first_call_inside_a_running_loop_imports_litellm_off_the_loop() -> None:
    """In a fresh process the first call waits for litellm's import, but the loop keeps serving
    other tasks meanwhile (imported on the loop, it stalled for all of it)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_CALL], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert out["before"] is False and out["after"] is True  # the call imported it
    assert out["served"] is True
