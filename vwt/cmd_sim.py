"""`vwt sim` commands: list the simulated models, or serve them in three providers' APIs."""

from __future__ import annotations

import contextlib
from enum import StrEnum
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.markup import escape
from rich.table import Table

from benchmark.errors import BenchmarkError
from benchmark.sim import SIM_MODELS, FaultPlan, SimServer
from vwt._common import console, user_errors

app = typer.Typer(
    help="The simulated models: list them, or serve them over loopback HTTP in the OpenAI, "
    "Anthropic and Gemini APIs with fault injection. Sim numbers say nothing about real models.",
    no_args_is_help=True,
)


class Status(StrEnum):
    """HTTP status of injected errors: 429 and 5xx are transient, 4xx end the trial."""

    BAD_REQUEST = "400"
    UNAUTHORIZED = "401"
    FORBIDDEN = "403"
    NOT_FOUND = "404"
    RATE_LIMITED = "429"
    SERVER_ERROR = "500"
    UNAVAILABLE = "503"


@app.command("models")
def models_cmd() -> None:
    """List the sim models: name, simulated provider, version and their skill parameters."""
    table = Table(
        "model",
        "provider",
        "version",
        "understand",
        "numbers",
        "enums",
        "procedure",
        "schema",
        "conventions",
        "recover",
        "conflict",
        "temperature",
        "follows (p ≥ 0.5)",
    )
    for s in SIM_MODELS.values():
        follows = ", ".join(f for f, p in s.follows.items() if p >= 0.5)
        table.add_row(
            s.name,
            s.provider,
            s.version,
            *(f"{p:.2f}" for p in (s.understand, s.read_numbers, s.map_enums, s.know_procedure)),
            *(f"{p:.2f}" for p in (s.read_schema, s.read_conventions, s.recover)),
            f"{s.notice_conflicts:.2f} → {s.on_conflict}",
            f"{s.temperature:.2f}",
            follows,
        )
    console.print(table)
    console.print("every parameter is explained in docs/sim.md", highlight=False)
    console.print(
        "in-process: model 'sim/<model>'; over HTTP as openai/, anthropic/ or gemini/<model>: "
        "'vwt sim serve'",
        highlight=False,
    )


def _plan(**fields: object) -> FaultPlan:
    try:
        return FaultPlan.model_validate(fields)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "fault plan"
        raise BenchmarkError(
            f"bad fault options ({where}: {err['msg']})",
            "rates are between 0 and 1 and together at most 1",
        ) from None


def _print_usage(server: SimServer) -> None:
    plan = server.faults
    faults = ", ".join(f"{k}={v}" for k, v in plan.model_dump().items())
    lines = [
        f"sim models served at {server.root}, in three providers' APIs:",
        f"  OpenAI chat completions   POST /v1/chat/completions   "
        f"OPENAI_API_BASE={server.url}  model 'openai/acme-2'",
        f"  Anthropic Messages        POST /v1/messages           "
        f"ANTHROPIC_API_BASE={server.root}  model 'anthropic/acme-2'",
        f"  Gemini generateContent    POST /v1beta/models/M:generateContent   "
        f"GEMINI_API_BASE={server.gemini_url}  model 'gemini/acme-2'",
        "no key is needed (vwt sends a placeholder where a client insists on one); in a cycle "
        "spec, give each model its base as endpoints.<model>.api_base (docs/models.md)",
        f"litellm: litellm.completion(model='anthropic/acme-2', api_base='{server.root}', "
        "api_key='sim', ...)",
        f"faults: {faults}",
        "Ctrl-C stops the server.",
    ]
    for line in lines:
        console.print(line, highlight=False, markup=False, soft_wrap=True)


@app.command("serve")
@user_errors
def serve_cmd(
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port on 127.0.0.1; 0 picks a free one.")
    ] = 0,
    fail_first: Annotated[
        int, typer.Option(min=0, help="The first N chat-completion requests fail with --status.")
    ] = 0,
    error_rate: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Probability a later request fails (--status).")
    ] = 0.0,
    status: Annotated[
        Status, typer.Option(help="HTTP status of injected errors.")
    ] = Status.SERVER_ERROR,
    delay: Annotated[
        float, typer.Option(min=0.0, max=600.0, help="Seconds every request waits first.")
    ] = 0.0,
    retry_after: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=3600.0,
            help="Send Retry-After: S (seconds) with injected 429 and 503 errors.",
        ),
    ] = None,
    malformed_rate: Annotated[
        float,
        typer.Option(min=0.0, max=1.0, help="Probability of a 200 that is not a completion."),
    ] = 0.0,
    drop_rate: Annotated[
        float,
        typer.Option(min=0.0, max=1.0, help="Probability the connection is closed unanswered."),
    ] = 0.0,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the per-request fault draws.")] = 0,
    quiet: Annotated[bool, typer.Option(help="Do not print a line per request.")] = False,
) -> None:
    """Serve the sim models at http://127.0.0.1:PORT until Ctrl-C, in three providers' APIs.

    POST /v1/chat/completions (OpenAI), POST /v1/messages (Anthropic) and POST
    /v1beta/models/MODEL:generateContent (Gemini) answer as the in-process 'sim/MODEL' would,
    each in its API's format; GET /v1/models lists them. Faults are drawn per request from
    --seed, on every API alike.
    """
    plan = _plan(
        seed=seed,
        fail_first=fail_first,
        error_rate=error_rate,
        status=int(status.value),
        delay_s=delay,
        retry_after_s=retry_after,
        malformed_rate=malformed_rate,
        drop_rate=drop_rate,
    )
    log = None if quiet else lambda line: console.print(escape(line), highlight=False)
    with SimServer(port, plan, log) as server:
        _print_usage(server)
        with contextlib.suppress(KeyboardInterrupt):
            server.wait()
    s = server.stats
    faults = ", ".join(f"{n} {kind}" for kind, n in s.faults.items())
    console.print(
        f"stopped: {s.requests} requests, {s.answered} answered, {s.rejected} rejected, "
        f"faults: {faults}",
        highlight=False,
    )
