"""Upload load: packed ~1 MiB bundles uploaded to a real ``vwt serve`` on loopback.

A fresh small cycle in state open (a temporary home), ``--submitters`` submitter accounts and
``--uploads`` distinct valid bundles, each of two prompt recipes of varied text (every artifact
under the 1 MiB artifact limit, the packed bundle ``--mib`` MiB), uploaded with httpx at
``--concurrency`` at once to the service running in its own process (uvicorn, as ``vwt serve``
runs it). The server's rate and concurrency limits are raised for the bench, and said so, so it
measures throughput, not the limiter. Prints uploads/s, MiB/s, p50/p95/max latency, the
statuses, and the submissions the ledger holds afterwards. Exits 1 unless every answer is 201
and every upload is in the ledger.

    python bench/upload_load.py [--uploads 100] [--concurrency 10] [--submitters 10] [--mib 1]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import multiprocessing
import random
import sys
import tempfile
import time
from collections import Counter
from multiprocessing.connection import Connection
from pathlib import Path

from _common import Stopwatch, bench_run

from benchmark import default_cycle_spec_path
from conditions import Cycle, CycleSpec, CycleState
from service import Accounts, ServiceLimits, running_server
from submissions import (
    ArtifactEntry,
    ArtifactKind,
    Bundle,
    BundleManifest,
    list_submissions,
    reference_dir,
)

MIB = 1 << 20
_WORDS = sorted(set((reference_dir("prompt-recipe") / "refund-playbook.md").read_text().split()))
"""Words to draw artifact text from: those of the reference refund playbook."""


def _open_cycle(home: Path) -> Cycle:
    """The embedded default cycle in ``home``, its targets committed, submissions open."""
    data = CycleSpec.load(default_cycle_spec_path()).model_dump(mode="json")
    data.update(opens_at="2020-01-01T00:00:00Z", closes_at="2999-01-01T00:00:00Z")
    cycle = Cycle.init(home, CycleSpec.model_validate(data))
    cycle.generate()
    cycle.commit(public_seed=True)  # a bench cycle: nothing in it is secret
    cycle.transition(CycleState.open, "upload bench opens submissions")
    return cycle


def _text(rng: random.Random, size: int) -> str:
    """About ``size`` bytes of numbered lines of words drawn by ``rng``."""
    lines: list[str] = []
    total = 0
    while total < size:
        line = f"{len(lines) + 1}. " + " ".join(rng.choices(_WORDS, k=12)) + "."
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)[:size]


def _bundle(submitter: str, version: int, size: int) -> bytes:
    """A packed bundle ``submitter@version`` of two prompt recipes, ``size`` bytes in all."""
    rng = random.Random(f"{submitter}@{version}")
    manifest = BundleManifest(
        name=submitter,
        version=str(version),
        description="Upload bench bundle.",
        developed_for="the upload bench",
        artifacts=(
            ArtifactEntry(kind=ArtifactKind.prompt_recipe, name="first", path="first.md"),
            ArtifactEntry(kind=ArtifactKind.prompt_recipe, name="second", path="second.md"),
        ),
    )
    half = size // 2
    first, second = _text(rng, half), _text(rng, size - half)
    while (
        len(
            packed := Bundle(
                manifest=manifest, files={"first.md": first, "second.md": second}
            ).canonical()
        )
        > size
    ):
        second = second[: len(second) - (len(packed) - size)]  # each newline packs as 2 bytes
    return packed


def _serve(home: Path, limits: ServiceLimits, log: Path, conn: Connection) -> None:
    """Child process: run the service on a free loopback port, send its URL, wait for a word."""
    # one JSON line per request: to the log, not the bench's output
    with open(log, "w") as f, running_server(home, limits, port=0, access_log=f) as url:
        conn.send(url)
        conn.recv()


async def _upload_all(
    url: str, uploads: list[tuple[str, bytes]], concurrency: int
) -> list[tuple[int, float]]:
    """POST every ``(token, packed)`` with ``concurrency`` in flight; (status, seconds) each."""
    import httpx

    pending = iter(uploads)
    done: list[tuple[int, float]] = []
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=300) as client:

        async def worker() -> None:
            for token, packed in pending:
                start = time.perf_counter()
                answer = await client.post(
                    "/api/v1/submissions",
                    content=packed,
                    headers={"Authorization": f"Bearer {token}"},
                )
                done.append((answer.status_code, time.perf_counter() - start))

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return done


def _quantile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--uploads", type=int, default=100, help="bundles to upload")
    parser.add_argument("--concurrency", type=int, default=10, help="uploads in flight at once")
    parser.add_argument("--submitters", type=int, default=10, help="submitter accounts")
    parser.add_argument("--mib", type=float, default=1.0, help="packed size of each bundle")
    args = parser.parse_args()
    size = int(args.mib * MIB)
    if not 0 < size <= 2 * MIB - 4096:
        parser.error("--mib must leave each of the two artifacts under the 1 MiB artifact limit")
    limits = ServiceLimits(
        requests_per_minute=1_000_000,
        uploads_per_minute=1_000_000,
        concurrent_uploads=args.concurrency,
        concurrent_uploads_per_token=args.concurrency,
    )
    with bench_run("upload load: packed bundles to vwt serve over loopback"):
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp) / "home"
            _open_cycle(home)
            accounts = Accounts(home)
            names = [f"bench-{i:03d}" for i in range(args.submitters)]
            tokens = {name: accounts.add(name) for name in names}
            context = multiprocessing.get_context("spawn")
            ours, theirs = context.Pipe()
            log = Path(tmp) / "access.jsonl"
            server = context.Process(target=_serve, args=(home, limits, log, theirs))
            server.start()
            try:
                url = ours.recv()
                uploads = [
                    (tokens[names[i % len(names)]], _bundle(names[i % len(names)], i, size))
                    for i in range(args.uploads)
                ]
                sent = sum(len(packed) for _, packed in uploads)
                print(f"server: vwt serve at {url} in its own process (uvicorn)")
                print(
                    f"rate limits raised for the bench (measuring throughput, not the limiter): "
                    f"{limits.requests_per_minute:,} requests and {limits.uploads_per_minute:,} "
                    f"uploads per minute per token, {limits.concurrent_uploads} uploads at once "
                    f"({limits.concurrent_uploads_per_token} per token); defaults are "
                    f"{ServiceLimits().uploads_per_minute}/min and "
                    f"{ServiceLimits().concurrent_uploads_per_token} at once per token"
                )
                print(
                    f"bundles: {args.uploads} distinct, {sent / args.uploads / MIB:.2f} MiB each "
                    f"packed (two prompt recipes), from {args.submitters} submitters"
                )
                with Stopwatch() as wall:
                    done = asyncio.run(_upload_all(url, uploads, args.concurrency))
            finally:
                ours.send("stop")
                server.join(timeout=30)
            statuses = Counter(status for status, _ in done)
            seconds = [s for _, s in done]
            stored = len(list_submissions(Cycle.open(home)))
            requests = len(log.read_text().splitlines()) if log.exists() else 0
        print(
            f"uploads {args.uploads} at concurrency {args.concurrency}: {len(done)} in "
            f"{wall.seconds:.2f} s = {len(done) / wall.seconds:.2f} uploads/s, "
            f"{sent / MIB / wall.seconds:.2f} MiB/s"
        )
        print(
            f"latency: p50 {_quantile(seconds, 0.5):.3f} s, p95 {_quantile(seconds, 0.95):.3f} s, "
            f"max {max(seconds):.3f} s"
        )
        print("statuses: " + ", ".join(f"{s} x{n}" for s, n in sorted(statuses.items())))
        print(f"ledger: {stored} submissions stored; server logged {requests} requests")
    return 0 if statuses == Counter({201: args.uploads}) and stored == args.uploads else 1


if __name__ == "__main__":
    sys.exit(main())
