"""Run one skill script inside a sandbox and print how it ended, as one JSON line. Standard
library only: it is copied into the sandbox next to ``_sandbox_exec.py`` and run there as

    python3 skill_exec.py TIMEOUT_S MAX_OUTPUT FOLDER ARGV...

It runs as a fresh process with one thread and no children, so ``run_limited`` can adopt what
the script leaves behind (a ``setsid`` child, a double fork) and kill it with the script. It
first makes itself (so the script) the process the kernel's out-of-memory killer takes first,
so a memory hog in the batch's container is killed before the family's backend is.
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # `-I` leaves the script's dir out

from _sandbox_exec import run_limited


def main(argv: list[str]) -> int:
    """Run ``argv[4:]`` in folder ``argv[3]`` under the limits ``argv[1:3]``; print the result."""
    timeout_s, max_output, folder, cmd = float(argv[1]), int(argv[2]), argv[3], argv[4:]
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass  # no /proc (not Linux): the container's limit still holds
    result = run_limited(cmd, folder, timeout_s, max_output)
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
