"""The demo's matrix must not depend on machine load: run `vwt demo` idle, then beside CPU hogs.

Prints both wall times, the invalid trials of each run and whether the two matrices are equal
(cells compared by condition content, since condition ids are keyed per cycle). Exits 1 when
they differ or any trial is invalid.

Run with `python bench/demo_under_load.py [--tasks N] [--k K] [--hogs H]`.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _hog() -> None:
    while True:
        pass


def _demo(home: Path, args: argparse.Namespace) -> float:
    cmd = [sys.executable, "-m", "vwt", "demo", "--home", str(home), "--force"]
    cmd += ["--tasks", str(args.tasks), "--k", str(args.k)]
    started = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def _matrix(home: Path) -> tuple[list[dict[str, Any]], int]:
    """Cells with condition ids replaced by the condition itself, and the invalid trial count."""
    release = json.loads((home / "public" / "release.json").read_text())["release"]
    by_id = {c["id"]: c["condition"] for c in release["conditions"]}
    cells = []
    for cell in release["cells"]:
        cell = dict(cell)
        cell["condition"] = by_id[cell.pop("condition_id")]
        cells.append(cell)
    cells.sort(key=lambda c: json.dumps(c, sort_keys=True))
    trials = (home / "public" / "trials.jsonl").read_text().splitlines()
    invalid = sum(json.loads(line)["outcome"] == "invalid" for line in trials)
    return cells, invalid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=24)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--hogs", type=int, default=2, help="Busy-loop processes beside it.")
    args = parser.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with tempfile.TemporaryDirectory() as tmp:
        idle_home, loaded_home = Path(tmp) / "idle", Path(tmp) / "loaded"
        idle_s = _demo(idle_home, args)
        hogs = [multiprocessing.Process(target=_hog, daemon=True) for _ in range(args.hogs)]
        for h in hogs:
            h.start()
        try:
            loaded_s = _demo(loaded_home, args)
        finally:
            for h in hogs:
                h.terminate()
        idle, idle_invalid = _matrix(idle_home)
        loaded, loaded_invalid = _matrix(loaded_home)
    same = idle == loaded
    print(f"idle:   {idle_s:6.1f} s, {len(idle)} cells, {idle_invalid} invalid trials")
    print(f"loaded: {loaded_s:6.1f} s ({args.hogs} CPU hogs), {loaded_invalid} invalid trials")
    print(f"matrices equal: {same}")
    if not same or idle_invalid or loaded_invalid:
        sys.exit(1)


if __name__ == "__main__":
    main()
