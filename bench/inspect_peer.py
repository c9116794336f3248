"""vwt against Inspect AI on the same workload: the support-ops refund task, sim model over HTTP.

Run: .venv/bin/python bench/inspect_peer.py [--tasks 4] [--k 2] [--venv DIR]; full size:
--full (24 sealed tasks, k=3: 72 trials). The workload is the source condition's baseline
batch (frozen phase, no artifacts): vwt runs it with ``runner.run_batch`` in this process;
Inspect runs bench/inspect_task/refund.py (the same tasks as samples, the trials as epochs,
the same tools on the same backend, our verifier as the scorer) in the bench's own venv. Both
call the same sim model (acme-2), served over loopback HTTP as an OpenAI-compatible endpoint
by a separate process, with each trial's request seed at temperature 0, at the same
concurrency, after a one-trial warm-up. Prints trials/s for both, the ratio and each side's
outcomes (the same seeds, so they should agree).

Inspect AI is installed by this script into --venv (default .vwt/bench-inspect-venv):
``python -m venv``, ``pip install inspect-ai openai`` (its OpenAI-compatible provider needs
the openai client), ``pip install -e`` this repo. If that fails (no network, no index), or
--no-install is given and the venv lacks them, the bench says so and exits 0 without the
Inspect figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from _common import Stopwatch, bench_run, rate, source_batches

from runner import Batch, TrialRecord, run_batch

REPO = Path(__file__).resolve().parent.parent
INSPECT_TASK = REPO / "bench" / "inspect_task" / "refund.py"
HTTP_MODEL = "openai/acme-2"
"""The sim model over HTTP, as litellm names it (OPENAI_API_BASE points at the server)."""
SERVE = (
    "import sys; from benchmark.sim import SimServer; s = SimServer().start(); "
    "print(s.url, flush=True); sys.stdin.read()"
)
"""The sim server process: prints its URL, serves until its stdin closes."""


def inspect_python(venv: Path, install: bool) -> Path | None:
    """The venv's interpreter once inspect-ai and this repo import there (installing both
    if needed and ``install``), or None (and why, printed) if they cannot be installed."""
    python = venv / "bin" / "python"
    check = [str(python), "-c", "import inspect_ai, openai, benchmark"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return python
    if not install:
        print(f"skipped: Inspect AI is not installed in {venv} (--no-install)")
        return None
    print(f"installing Inspect AI into {venv} (once) ...", flush=True)
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [str(python), "-m", "pip", "install", "-q", "inspect-ai", "openai"],
        [str(python), "-m", "pip", "install", "-q", "-e", str(REPO)],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode != 0:
            why = (done.stderr.strip().splitlines() or ["no output"])[-1]
            print(f"skipped: Inspect AI could not be installed ({' '.join(step[2:])}: {why})")
            return None
    return python


def http_batch(batch: Batch) -> Batch:
    """``batch`` with its model reached over HTTP (the sim server) instead of in process."""
    c = batch.condition
    model = c.model.model_copy(update={"model": HTTP_MODEL})
    return batch.model_copy(update={"condition": c.model_copy(update={"model": model})})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=4, help="sealed tasks (default 4)")
    parser.add_argument("--k", type=int, default=2, help="trials per task (default 2)")
    parser.add_argument("--full", action="store_true", help="full size: 24 tasks, k=3")
    parser.add_argument("--concurrency", type=int, default=16, help="trials at once (16)")
    parser.add_argument("--venv", type=Path, default=REPO / ".vwt" / "bench-inspect-venv")
    parser.add_argument(
        "--no-install", action="store_true", help="skip Inspect unless --venv already has it"
    )
    args = parser.parse_args()
    tasks, k = (24, 3) if args.full else (args.tasks, args.k)
    baseline = next(b for b in source_batches(tasks, k) if b.bundle_hash is None)
    trials = len(baseline.trials)
    with bench_run(f"vwt vs Inspect AI: refund task, {trials} trials, sim model over HTTP"):
        python = inspect_python(args.venv, not args.no_install)
        server = subprocess.Popen(
            [sys.executable, "-c", SERVE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        try:
            assert server.stdout is not None
            url = server.stdout.readline().strip()
            if not url.startswith("http://"):
                print(f"error: the sim server did not start (said {url!r})")
                return 1
            os.environ["OPENAI_API_BASE"], os.environ["OPENAI_API_KEY"] = url, "sim"
            batch = http_batch(baseline)
            warm = batch.model_copy(update={"trials": batch.trials[:1]})
            run_batch(warm.model_dump_json(), "local", args.concurrency)
            with Stopwatch() as ours:
                rows = run_batch(batch.model_dump_json(), "local", args.concurrency)
            got = Counter(TrialRecord.model_validate_json(r).outcome for r, *_ in rows)
            print(f"vwt (run_batch, in process): {rate(trials, ours.seconds)}; {dict(got)}")
            if python is None:
                return 0
            with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
                f.write(baseline.model_dump_json())
                f.flush()
                argv = [str(python), str(INSPECT_TASK), f.name, url]
                argv += ["--concurrency", str(args.concurrency)]
                done = subprocess.run(argv, capture_output=True, text=True)
        finally:
            server.stdin.close()  # type: ignore[union-attr]
            server.wait()
        if done.returncode != 0:
            print(f"error: the Inspect run failed:\n{done.stderr[-2000:]}")
            return 1
        theirs = json.loads(done.stdout.strip().splitlines()[-1])
        print(
            f"Inspect AI {_inspect_version(python)} (eval_async): "
            f"{rate(theirs['trials'], theirs['seconds'])}; {theirs['outcomes']}"
        )
        ours_rate = trials / ours.seconds
        theirs_rate = theirs["trials"] / theirs["seconds"]
        print(f"ratio vwt / Inspect AI (trials/s): {ours_rate / theirs_rate:.2f}")
        same = "the same" if theirs["outcomes"] == dict(got) else "DIFFERENT"
        print(f"outcomes: {same} on both sides (same tasks, seeds and verifier)")
    return 0


def _inspect_version(python: Path) -> str:
    argv = [str(python), "-c", "import inspect_ai; print(inspect_ai.__version__)"]
    return subprocess.run(argv, capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    sys.exit(main())
