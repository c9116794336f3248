"""Human adaptation: a kit exported to a directory, and the adapted bundle imported back with
the human minutes its author declares (validated before anything is written)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from adapt._access import AdaptationKit
from adapt._bundle import AdaptedBundle
from adapt._meter import Budget, Cost
from adapt.errors import AdaptError, BudgetExceeded
from submissions import MANIFEST_FILE, Bundle, SubmissionError, load_bundle

KIT_FILE = "kit.json"
"""The exported kit's description: target, served interfaces, sample, budget, parent."""
_README = """\
Adaptation kit for target {target}

- {kit_file}: the target's model, harness and served interfaces, the sample, the budget and the
  hash of the frozen bundle (the parent).
- tools/<environment>.json: the served tool definitions (MCP form).
- tasks/<task>.json: the adaptation sample (the target's adaptation split; never sealed tasks).
- bundle/: the frozen bundle. Edit its artifacts (or its manifest's artifact list) in place.

Import the adapted bundle with the minutes you spent (at most {minutes}); it is validated
before anything is written.
"""


def _write(kit: AdaptationKit, root: Path, rel: str, data: bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    kit.note_file(rel, data)


def _json(obj: Any) -> bytes:
    return (json.dumps(obj, indent=2, sort_keys=True) + "\n").encode()


def export_kit(kit: AdaptationKit, bundle: Bundle, budget: Budget, out: Path) -> Path:
    """Write the kit for a human adaptation of ``bundle`` to the new directory ``out``.

    Every file handed out is logged in the kit's access log."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise AdaptError(f"{out} exists and is not an empty directory", "choose a new directory")
    tasks = kit.sample()
    tools = {env: kit.tools(env) for env in kit.environments}
    described = {
        "v": 1,
        "target": kit.target_id,
        "model": kit.model,
        "harness": kit.harness,
        "interfaces": {
            env: {"version": kit.served(env).version.label, "digest": kit.served(env).digest}
            for env in kit.environments
        },
        "sample": [t.id for t in tasks],
        "budget": budget.model_dump(mode="json"),
        "parent": bundle.hash,
    }
    _write(kit, out, KIT_FILE, _json(described))
    for env, listed in tools.items():
        _write(kit, out, f"tools/{env}.json", _json(listed))
    for t in tasks:
        _write(kit, out, f"tasks/{t.id.replace('/', '__')}.json", _json(t.model_dump(mode="json")))
    manifest = json.loads(bundle.manifest.canonical())
    _write(kit, out, f"bundle/{MANIFEST_FILE}", _json(manifest))
    for path, text in bundle.files.items():
        _write(kit, out, f"bundle/{path}", text.encode("utf-8"))
    readme = _README.format(target=kit.target_id, kit_file=KIT_FILE, minutes=budget.human_minutes)
    _write(kit, out, "README.md", readme.encode())
    return out


def import_adapted(
    source: Path,
    parent: Bundle,
    *,
    target: str,
    human_minutes: int,
    budget: Budget,
    out: Path | None = None,
) -> AdaptedBundle:
    """The bundle at ``source`` (a directory or a packed file) as a human adaptation of
    ``parent`` that took ``human_minutes``; written to ``out`` (if given) only once the
    minutes, the bundle and its name are valid."""
    if isinstance(human_minutes, bool) or not isinstance(human_minutes, int) or human_minutes < 0:
        raise AdaptError(
            f"human minutes must be a whole number ≥ 0 (got {human_minutes!r})",
            "declare the minutes spent adapting",
        )
    if human_minutes > budget.human_minutes:
        raise BudgetExceeded(
            f"{human_minutes} declared human minutes exceed the budget of {budget.human_minutes}",
            "the cycle's budget is fixed: an adaptation that took longer does not count",
        )
    try:
        adapted = load_bundle(source)
    except SubmissionError as e:
        raise AdaptError(f"the adapted bundle is not valid: {e}", e.hint) from None
    if adapted.manifest.name != parent.manifest.name:
        raise AdaptError(
            f"the adapted bundle is named {adapted.manifest.name!r}, its parent "
            f"{parent.manifest.name!r}",
            "an adaptation keeps the submission's name",
        )
    record = AdaptedBundle.make(
        parent,
        adapted,
        target=target,
        procedure="human",
        cost=Cost(human_minutes=human_minutes),
        notes=(f"adapted by hand in {human_minutes} declared minute(s)",),
    )
    if out is not None:
        record.write(out)
    return record
