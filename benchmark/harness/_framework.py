"""Real agent frameworks as harnesses: each pinned release runs in an environment of its own, one
process per trial, driven by a small script of ours that uses only the framework's public API.

The process gets the trial's instructions and request, and two loopback endpoints
(:mod:`benchmark.harness._loopback`): an OpenAI-compatible model endpoint that sends every
request through vwt's gateway, and the trial's tools over MCP. It gets no secret (its
environment is built from nothing), a time limit, and bounded output; a framework that crashes,
exits non-zero or outlives its limit ends only its own trial, ``invalid`` with the cause.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import tempfile
import weakref
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mcp import types
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchmark._call_log import current_log
from benchmark._environment import ToolResult
from benchmark.errors import BenchmarkError
from benchmark.harness._harness import Harness, HarnessInfo, HarnessTrial
from benchmark.harness._loop import AgentContext
from benchmark.harness._loopback import Loopback, ToolExchange
from benchmark.harness._process_server import ProcessServer, ServerGone
from benchmark.harness._run import STOP_REPORT, AgentRun
from benchmark.harness._skill_tools import SKILL_TOOLS
from benchmark.harness._versions import PREAMBLE, HarnessVersion

FRAMEWORKS_ENV = "VWT_FRAMEWORKS"
"""Environment variable: the directory holding one environment per framework harness
(``<dir>/<harness id>/``); by default ``.frameworks`` beside vwt's packages (the repository's
root in a checkout), where ``scripts/frameworks-setup.sh`` installs them."""
TIMEOUT_ENV = "VWT_FRAMEWORK_TIMEOUT_S"
"""Environment variable: seconds a framework's process may run for one trial (default 900)."""
CONCURRENCY_ENV = "VWT_FRAMEWORK_CONCURRENCY"
"""Environment variable: framework processes one worker process runs at once (default 4)."""
DRIVERS = Path(__file__).parent / "drivers"
"""The driver scripts, one per framework (run by the framework environment's Python)."""
DRIVER_VERSION = 1
"""Version of the files a driver reads and writes (:class:`DriverInput`, :class:`DriverResult`)."""
KEPT_OUTPUT = 4096
"""Bytes of a framework process's stdout and stderr kept (the last ones), for its errors."""
MAX_RESULT_BYTES = 1024 * 1024
"""Largest result file read."""
_SETTINGS = HarnessVersion(
    id="framework",
    max_turns=12,
    skill_loading="context",
    model_retries=2,
    tool_exposure="all",
    artifacts_in="system",
    preamble=PREAMBLE,
)
"""How vwt sets every framework up: harness-v1's instructions (the preamble with its stop
protocol, then the artifacts as harness-v1 writes them), every served tool, 12 model turns, and
the gateway's retries as harness-v1's."""


class DriverInput(BaseModel):
    """What a driver is given for one trial (``trial.json`` in its working directory)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: Literal[1] = Field(default=1, description="Format version.")
    model_url: str = Field(description="The OpenAI-compatible base URL (…/v1) on loopback.")
    model_name: str = Field(description="The model name to put in requests.")
    token: str = Field(description="The bearer token both endpoints require (the 'API key').")
    mcp_url: str = Field(description="The trial's tools: an MCP endpoint (streamable HTTP).")
    instructions: str = Field(description="The agent's instructions (its system prompt).")
    input: str = Field(description="The user's request: the task's instruction.")
    max_turns: int = Field(description="Model calls the framework may make.")
    timeout_s: float = Field(description="Seconds any one request may take.")
    result: str = Field(description="Where to write the :class:`DriverResult`.")


class DriverResult(BaseModel):
    """What a driver reports when the framework's run ended (``result.json``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: Literal[1] = Field(default=1, description="Format version.")
    ended: Literal["answered", "turn_limit", "stopped"] = Field(
        description="'answered': the agent gave a final answer; 'turn_limit': the framework "
        "cut it off at max_turns; 'stopped': the framework ended the run itself (an error it "
        "raises at the model's behaviour, e.g. a tool failing past its retries)."
    )
    final: str = Field(default="", description="The agent's final answer.")
    detail: str = Field(default="", description="The framework's words, when it stopped.")
    blocked: list[str] = Field(
        default_factory=list,
        description="Connections the driver refused (anything but loopback), by address.",
    )


def frameworks_home(environ: Mapping[str, str] | None = None) -> Path:
    """Where the framework environments are (``VWT_FRAMEWORKS``, else ``.frameworks`` beside
    vwt's packages)."""
    env = os.environ if environ is None else environ
    given = env.get(FRAMEWORKS_ENV, "").strip()
    return Path(given) if given else Path(__file__).resolve().parents[2] / ".frameworks"


def _number(name: str, default: float, cast: type[float] | type[int]) -> float:
    raw = os.environ.get(name, "").strip()
    try:
        value = cast(raw) if raw else default
    except ValueError:
        value = -1
    if value <= 0:
        raise BenchmarkError(
            f"{name}={raw!r} is not a positive number", f"unset {name} for the default"
        )
    return value


def framework_timeout() -> float:
    """Seconds a framework process may run for one trial (``VWT_FRAMEWORK_TIMEOUT_S``)."""
    return _number(TIMEOUT_ENV, 900.0, float)


_SLOTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


@contextlib.asynccontextmanager
async def _slot() -> AsyncIterator[None]:
    """One of this process's framework-process slots (``VWT_FRAMEWORK_CONCURRENCY``): a batch
    runs many trials at once, and each framework process imports the framework anew."""
    loop = asyncio.get_running_loop()
    if loop not in _SLOTS:
        _SLOTS[loop] = asyncio.Semaphore(int(_number(CONCURRENCY_ENV, 4, int)))
    async with _SLOTS[loop]:
        yield


@dataclass(frozen=True)
class _Ended:
    """How a framework process ended: its result, or why there is none."""

    result: DriverResult | None
    problem: str | None = None


def _mcp_tool(tool: dict[str, Any]) -> types.Tool:
    fn = tool["function"]
    return types.Tool(name=fn["name"], description=fn["description"], inputSchema=fn["parameters"])


async def _kept(stream: asyncio.StreamReader | None) -> bytes:
    """The last ``KEPT_OUTPUT`` bytes of ``stream``, read to its end."""
    kept = b""
    while stream is not None and (chunk := await stream.read(65536)):
        kept = (kept + chunk)[-KEPT_OUTPUT:]
    return kept


_RAISED = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Group)\b.*?:")


def _tail(path: Path) -> bytes:
    """The last ``KEPT_OUTPUT`` bytes of the file at ``path`` (none if there is no file)."""
    try:
        with path.open("rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - KEPT_OUTPUT))
            return f.read()
    except FileNotFoundError:
        return b""


def _last_line(output: bytes) -> str:
    """What a process's output says last: the last exception line of a traceback (of an
    exception group's too), else its last line."""
    # lines of an exception group's traceback are drawn inside "|" and "+---" borders
    lines = [line.strip(" \t|+-") for line in output.decode("utf-8", "replace").splitlines()]
    lines = [line for line in lines if line]
    raised = [line for line in lines if _RAISED.match(line)]
    return (raised or lines or [""])[-1][:500]


def _exit_text(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-code).name}"
        return f"was killed by signal {-code}"
    return f"exited with status {code}"


def _matched(messages: list[dict[str, Any]], exchanges: list[ToolExchange]) -> dict[str, Any]:
    """The MCP exchange behind each tool call of ``messages``, by tool call id: the first
    exchange not yet matched with the same tool name and arguments (frameworks call tools in
    the order the model asked)."""
    left = list(exchanges)
    out: dict[str, Any] = {}
    for m in messages:
        for tc in m.get("tool_calls") or []:
            fn = tc.get("function") or {}
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except ValueError:
                continue
            for i, ex in enumerate(left):
                if ex.name == fn.get("name") and ex.arguments == args:
                    out[str(tc.get("id"))] = left.pop(i).mcp()
                    break
    return out


class FrameworkHarness(Harness):
    """An agent framework at one pinned release (see the module).

    ``framework`` is its distribution's name on PyPI and ``version`` the release; ``driver``
    the script under ``drivers/`` that runs it; ``environment`` what the process's environment
    holds besides the basics (switches turning the framework's telemetry off)."""

    def __init__(
        self,
        framework: str,
        version: str,
        driver: str,
        summary: str,
        *,
        distribution: str | None = None,
        environment: Mapping[str, str] | None = None,
    ) -> None:
        """The harness ``framework@version`` (see the class); ``distribution`` names the
        installed distribution when it is not ``framework`` (e.g. a slim variant)."""
        self.id = f"{framework}@{version}"
        self.framework, self.version, self.summary = framework, version, summary
        self.driver = DRIVERS / driver
        self.distribution = distribution or framework
        self.environment = dict(environment or {})
        self._servers: dict[asyncio.AbstractEventLoop, ProcessServer] = {}

    def home(self) -> Path:
        """This framework's environment."""
        return frameworks_home() / self.id

    def python(self) -> Path:
        """The interpreter of this framework's environment."""
        return self.home() / "bin" / "python"

    def info(self) -> HarnessInfo:
        """Unavailable while the pinned release is not installed in its environment."""
        return HarnessInfo(
            id=self.id,
            kind="framework",
            version=self.version,
            framework=self.framework,
            summary=self.summary,
            unavailable=self._missing(),
        )

    def _missing(self) -> str | None:
        home = self.home()
        if not self.python().exists():
            return f"its environment {home} is not installed"
        name = self.distribution.replace("-", "_")
        if not any(home.glob(f"lib/python*/site-packages/{name}-{self.version}.dist-info")):
            return f"{home} does not hold {self.distribution} {self.version}"
        return None

    async def run(self, trial: HarnessTrial) -> AgentRun:
        """Run the framework on ``trial`` in a process of its own (see the module)."""
        ctx = AgentContext(
            trial.model,
            _SETTINGS,
            trial.env,
            trial.artifacts,
            trial.seed,
            trial.endpoint,
            trial.scripts,
        )
        run = ctx.run
        parts = ctx.artifacts()  # the typed-skill runtime checks contracts here
        if run.safe_stop:
            return run
        system, user = (m["content"] for m in ctx.opening(parts))
        tools = [*trial.env.listed, *map(_mcp_tool, ctx.skill_tools.definitions())]

        async def call(name: str, args: dict[str, Any]) -> ToolResult:
            if name in SKILL_TOOLS:
                return await ctx.skill_tools.call(name, args)
            return await trial.call_tool(name, args)

        loopback = Loopback(
            model=trial.model,
            seed=trial.seed,
            endpoint=trial.endpoint,
            policy=ctx.policy,
            run=run,
            tools=tools,
            call=call,
            log=current_log(),
        )
        async with _slot(), loopback.serving():
            ended = await self._drive(loopback, system, user, trial.model)
        if loopback.error is not None:  # the trial's tools failed: the runner says how
            raise loopback.error
        return self._finish(run, loopback, ended)

    def _finish(self, run: AgentRun, loopback: Loopback, ended: _Ended) -> AgentRun:
        run.tool_calls = len(loopback.requested)
        refused = max(0, len(loopback.requested) - len(loopback.exchanges))
        run.tool_errors = sum(bool(e.result.isError) for e in loopback.exchanges) + refused
        run.mcp = _matched(run.messages, loopback.exchanges)
        if loopback.failed is not None:
            run.invalid = loopback.failed
            return run
        if ended.result is None:
            run.invalid = f"harness {self.id}: {ended.problem}"
            return run
        result = ended.result
        run.notes += [f"{self.id} blocked a connection to {a}" for a in result.blocked]
        if result.ended == "turn_limit":
            run.hit_turn_limit = True
        elif result.ended == "stopped":
            run.notes.append(f"{self.id} ended the run: {result.detail}")
        run.final = result.final
        if run.final.startswith(STOP_REPORT):
            run.safe_stop = run.final
        return run

    def _environ(self, home: str) -> dict[str, str]:
        """The whole environment of a framework process: nothing of vwt's (no key, no
        proxy), its home and temporary files in ``home``, the framework's own switches."""
        return {
            "PATH": os.defpath,
            "HOME": home,
            "TMPDIR": home,
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            **self.environment,
        }

    @contextlib.asynccontextmanager
    async def session(self) -> AsyncIterator[None]:
        """For a batch: one process server (:mod:`benchmark.harness._process_server`) that
        imports the framework once and forks a process per trial."""
        loop = asyncio.get_running_loop()
        with tempfile.TemporaryDirectory(prefix="vwt-framework-server-") as home:
            server = ProcessServer(self.python(), self.driver, self._environ(home), home)
            self._servers[loop] = server
            try:
                await server.start()
                yield
            finally:
                del self._servers[loop]
                await server.close()

    async def _drive(self, loopback: Loopback, system: str, user: str, model: str) -> _Ended:
        limit = framework_timeout()
        with tempfile.TemporaryDirectory(prefix="vwt-framework-") as tmp:
            work = Path(tmp)
            given = DriverInput(
                model_url=loopback.model_url,
                model_name=model.split("/", 1)[-1],
                token=loopback.token,
                mcp_url=loopback.mcp_url,
                instructions=system,
                input=user,
                max_turns=_SETTINGS.max_turns,
                timeout_s=limit,
                result=str(work / "result.json"),
            )
            (work / "trial.json").write_text(given.model_dump_json(), encoding="utf-8")
            server = self._servers.get(asyncio.get_running_loop())
            if server is not None:
                try:
                    code = await server.run(work / "trial.json", limit)
                except ServerGone as e:
                    return _Ended(None, str(e))
                err = _tail(work / "stderr")
            else:
                code, err = await self._process(work, limit)
            if code is None:
                return _Ended(None, f"no result within {limit:g} s (the framework was killed)")
            if code != 0:
                said = _last_line(err)
                return _Ended(
                    None, f"the framework {_exit_text(code)}" + (f": {said}" * bool(said))
                )
            return self._result(work / "result.json", err)

    async def _process(self, work: Path, limit: float) -> tuple[int | None, bytes]:
        """Run the trial in ``work`` in a process of its own, outside a session: (its exit
        status, or None when it was killed at ``limit``; the end of its stderr)."""
        proc = await asyncio.create_subprocess_exec(
            str(self.python()),
            "-s",
            str(self.driver),
            str(work / "trial.json"),
            cwd=work,
            env=self._environ(str(work)),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # its whole process group is killed at the limit
        )
        output = asyncio.gather(_kept(proc.stdout), _kept(proc.stderr))
        code: int | None = None
        try:
            code = await asyncio.wait_for(proc.wait(), limit)
        except TimeoutError:
            pass
        finally:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                await proc.wait()
            _, err = await output
        return code, err

    @staticmethod
    def _result(path: Path, err: bytes) -> _Ended:
        try:
            with path.open("rb") as f:
                data = f.read(MAX_RESULT_BYTES + 1)
            if len(data) > MAX_RESULT_BYTES:
                return _Ended(None, f"its result is over {MAX_RESULT_BYTES} bytes")
            return _Ended(DriverResult.model_validate_json(data))
        except FileNotFoundError:
            return _Ended(None, f"the framework left no result: {_last_line(err)}")
        except ValidationError as e:
            return _Ended(None, f"its result is malformed: {e.errors()[0]['msg']}")
