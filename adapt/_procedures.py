"""The built-in adaptation procedures, each ``(bundle, kit, gateway) -> AdaptedBundle``.

- ``rebind-skills``: re-bind typed skills (the contract in an Agent Skill's metadata, or an
  old-IR typed skill) to the served interface with the drift classifier (no model calls);
- ``rewrite-recipes``: ask the target's model, through the gateway, to rewrite each prompt
  recipe for the served tools, given their definitions, the classifier's changes and what went
  wrong on sample tasks; a reply is kept only if it parses;
- ``refresh-episodes``: re-solve the sample tasks (trials through the harness, metered) and
  replace each trajectory memory's episodes by the verified successes.

Every read goes through the kit (logged), every model call through the gateway (metered);
a procedure stops at the first refused call and ends with what it has.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from adapt._access import AdaptationKit
from adapt._bundle import AdaptedBundle
from adapt._meter import MeteredGateway
from adapt._rebind import rebind_skill, skill_text
from adapt._trials import run_sample
from adapt.errors import AdaptError, BudgetExceeded
from benchmark import Outcome, Task, TrialResult, family
from benchmark.harness import (
    SKILL_FILE,
    AgentArtifacts,
    AgentSkill,
    Episode,
    TrajectorySet,
    TypedSkill,
)
from drift import ServedInterface, ToolCall, classify
from submissions import MAX_ARTIFACT_BYTES, ArtifactKind, Bundle

Procedure = Callable[[Bundle, AdaptationKit, MeteredGateway], AdaptedBundle]
"""An adaptation procedure."""

PROBE_TASKS = 2
"""Sample tasks the recipe rewriter runs the frozen bundle on, to show the model what broke."""
_RECIPE = re.compile(r"<recipe>\s*(.*?)\s*</recipe>", re.DOTALL)


def _served(kit: AdaptationKit) -> dict[str, ServedInterface]:
    return {env: kit.served(env) for env in kit.environments}


def _finish(
    frozen: Bundle,
    files: dict[str, str],
    kit: AdaptationKit,
    gateway: MeteredGateway,
    name: str,
    notes: list[str],
) -> AdaptedBundle:
    adapted = Bundle(manifest=frozen.manifest, files=files)
    return AdaptedBundle.make(
        frozen,
        adapted,
        target=kit.target_id,
        procedure=name,
        cost=gateway.cost(),
        notes=tuple(notes),
    )


def _of_kind(bundle: Bundle, kind: ArtifactKind) -> list[str]:
    return [a.path for a in bundle.manifest.artifacts if a.kind is kind]


# --- (a) typed skills ------------------------------------------------------------------------
def rebind_skills(bundle: Bundle, kit: AdaptationKit, gateway: MeteredGateway) -> AdaptedBundle:
    """Re-bind the contract of every typed skill (an Agent Skill's ``vwt-contract`` metadata,
    or an old-IR typed skill) that applies to a sampled family to the served interface."""
    files, notes = dict(bundle.files), []
    sampled = {t.family for t in kit.sample()}
    served = _served(kit)
    for entry in bundle.manifest.artifacts:
        if entry.kind is ArtifactKind.agent_skill:
            path = f"{entry.path}/{SKILL_FILE}"
            agent = AgentSkill(skill_md=kit.artifact(bundle, path))
            skill = agent.contract
            if skill is None:
                notes.append(f"{path}: no typed contract in its metadata; unchanged")
                continue
        elif entry.kind is ArtifactKind.typed_skill:
            path, agent = entry.path, None
            skill = TypedSkill.model_validate_json(kit.artifact(bundle, path))
        else:
            continue
        if not sampled & set(skill.triggers.families):
            notes.append(f"{path}: applies to none of the sampled families; unchanged")
            continue
        rebound, why = rebind_skill(skill, served)
        notes += [f"{path}: {w}" for w in why]
        if rebound != skill:
            files[path] = agent.with_contract(rebound).skill_md if agent else skill_text(rebound)
    return _finish(bundle, files, kit, gateway, "rebind-skills", notes)


# --- (b) prompt recipes ----------------------------------------------------------------------
def _what_broke(results: list[tuple[Task, TrialResult]]) -> list[str]:
    """Per probe trial: the request, its outcome, tool errors and the model's last words."""
    out = []
    for task, r in results:
        errors = [
            str(m.get("content"))[:300]
            for m in r.run.messages
            if m.get("role") == "tool" and str(m.get("content") or "").startswith("error")
        ]
        last = next(
            (
                str(m["content"])
                for m in reversed(r.run.messages)
                if m.get("role") == "assistant" and m.get("content")
            ),
            "",
        )
        lines = [f"Request: {task.instruction}", f"Outcome: {r.outcome.value}"]
        lines += [f"Tool error: {e}" for e in errors]
        lines += [f"Critical: {f.call.name} misused ({f.operator})" for f in r.critical]
        if last:
            lines.append(f"Final answer: {last[:300]}")
        out.append("\n".join(lines))
    return out


def _changes(kit: AdaptationKit, served: dict[str, ServedInterface]) -> list[str]:
    """The classifier's changes from each family's base tools to the served ones."""
    out = []
    for fam in {family(f) for f in kit.families}:
        now = served.get(fam.env_id)
        if now is None:
            continue
        report = classify(fam.base_tools(), now.tools)
        out += [
            f"{c.tool} {c.path}: {c.kind} ({c.drift_class}): {c.reason}" for c in report.changes
        ]
    return out


def rewrite_request(
    recipe: str, tools: list[dict[str, Any]], changes: list[str], broke: list[str]
) -> list[dict[str, Any]]:
    """The messages that ask a model to rewrite ``recipe`` for the served ``tools``."""
    system = (
        "You maintain playbooks that an agent follows when it uses tools. The tools changed. "
        "Rewrite the playbook so that it is correct for the tools as they are served now: "
        "their names, fields, units and conventions. Keep every step that still holds. Reply "
        "with the rewritten playbook only, between <recipe> and </recipe>."
    )
    parts = [
        "<playbook>\n" + recipe.strip() + "\n</playbook>",
        "Served tools (MCP definitions):\n" + json.dumps(tools, indent=1),
        "Changes from the tools the playbook was written for:\n" + "\n".join(changes or ["none"]),
        "Sample tasks run with the playbook as it is:\n" + "\n\n".join(broke or ["none run"]),
    ]
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


def parse_recipe(reply: Any) -> tuple[str | None, str]:
    """The recipe text in a model reply, or None with why it was not kept."""
    content = reply.choices[0].message.content if reply.choices else None
    if not content:
        return None, "the reply has no text (a tool call, or empty)"
    match = _RECIPE.search(content)
    if match is None or not match.group(1).strip():
        return None, f"the reply holds no <recipe> block: {content[:120]!r}"
    text = match.group(1).strip() + "\n"
    if len(text.encode("utf-8")) > MAX_ARTIFACT_BYTES:
        return None, "the recipe is over the artifact size limit"
    return text, "parsed"


def rewrite_recipes(bundle: Bundle, kit: AdaptationKit, gateway: MeteredGateway) -> AdaptedBundle:
    """Ask the target's model to rewrite every prompt recipe for the served tools."""
    files, notes = dict(bundle.files), []
    paths = _of_kind(bundle, ArtifactKind.prompt_recipe)
    if not paths:
        return _finish(bundle, files, kit, gateway, "rewrite-recipes", ["no prompt recipe"])
    served = _served(kit)
    tools = [t for now in served.values() for t in now.tools.to_mcp()]
    changes = _changes(kit, served)
    probes = kit.sample()[:PROBE_TASKS]
    results = run_sample(kit, gateway, bundle.agent_artifacts(), probes, bundle.hash)
    notes.append(
        f"probe: {len(results)} sample trial(s) with the frozen bundle: "
        + ", ".join(r.outcome.value for _, r in results)
    )
    broke = _what_broke(results)
    for path in paths:
        messages = rewrite_request(kit.artifact(bundle, path), tools, changes, broke)
        try:
            reply = gateway.complete(kit.model, messages, temperature=0)
        except BudgetExceeded as e:
            notes.append(f"{path}: not rewritten: {e}")
            break
        text, why = parse_recipe(reply)
        if text is None:
            notes.append(f"{path}: reply not kept ({why}); unchanged")
        elif text == files[path]:
            notes.append(f"{path}: the model returned it unchanged")
        else:
            files[path] = text
            notes.append(f"{path}: rewritten by {kit.model}")
    return _finish(bundle, files, kit, gateway, "rewrite-recipes", notes)


# --- (c) retrieved episodes ------------------------------------------------------------------
def _episode(task: Task, result: TrialResult) -> Episode | None:
    """The episode of a verified success: the request and the calls that were accepted."""
    if result.outcome is not Outcome.SUCCESS:
        return None
    calls, pending = [], {}
    for m in result.run.messages:
        for tc in m.get("tool_calls") or []:
            pending[tc["id"]] = tc["function"]
        if m.get("role") == "tool" and m.get("tool_call_id") in pending:
            fn = pending.pop(m["tool_call_id"])
            ok = not str(m.get("content") or "").startswith("error")
            if ok and fn["name"] != "load_skill":
                calls.append(ToolCall(name=fn["name"], arguments=json.loads(fn["arguments"])))
    return Episode(instruction=task.instruction, calls=tuple(calls)) if calls else None


def _memory_family(memory: TrajectorySet, kit: AdaptationKit) -> str | None:
    """The target family whose tools (base or served) a memory's episodes call, if any."""
    called = {c.name for e in memory.episodes for c in e.calls}
    for fam_id in kit.families:
        fam = family(fam_id)
        names = {t.name for t in fam.base_tools().tools}
        if fam.env_id in kit.environments:
            names |= {t.name for t in kit.served(fam.env_id).tools.tools}
        if called & names:
            return fam_id
    return None


def refresh_episodes(bundle: Bundle, kit: AdaptationKit, gateway: MeteredGateway) -> AdaptedBundle:
    """Re-solve the sample tasks in the target condition and keep the verified successes as
    the episodes of each trajectory memory of the target's families (a memory belongs to the
    family whose tools its episodes call; others are left alone). A task is tried with the
    frozen bundle, then, if that failed, without its memories (stale episodes can be what
    fails)."""
    files, notes = dict(bundle.files), []
    memories = {
        path: TrajectorySet.model_validate_json(kit.artifact(bundle, path))
        for path in _of_kind(bundle, ArtifactKind.trajectory)
    }
    owners = {path: _memory_family(m, kit) for path, m in memories.items()}
    for path, owner in owners.items():
        if owner is None:
            notes.append(f"{path}: its episodes call none of the target's tools; unchanged")
    if not any(owners.values()):
        return _finish(bundle, files, kit, gateway, "refresh-episodes", notes or ["no memory"])
    tasks = [t for t in kit.sample() if t.family in set(owners.values())]
    frozen = bundle.agent_artifacts()
    fresh: dict[str, Episode] = {}
    first = run_sample(kit, gateway, frozen, tasks, bundle.hash)
    for task, result in first:
        episode = _episode(task, result)
        if episode is not None:
            fresh[task.id] = episode
    retry = [t for t, _ in first if t.id not in fresh]
    without = AgentArtifacts(recipes=frozen.recipes, skills=frozen.skills)
    second = run_sample(kit, gateway, without, retry, f"{bundle.hash}/no-memory")
    for task, result in second:
        episode = _episode(task, result)
        if episode is not None:
            fresh[task.id] = episode
    notes.append(
        f"{len(first)} sample trial(s) with the frozen bundle, {len(second)} without its "
        f"memories; {len(fresh)} of {len(tasks)} tasks solved and verified"
    )
    stopped = gateway.cost().stopped
    if stopped is not None:
        notes.append(f"stopped early: {stopped}")
    for path, owner in owners.items():
        episodes = tuple(fresh[t.id] for t in tasks if t.id in fresh and t.family == owner)
        if owner is None:
            continue
        if not episodes:
            notes.append(f"{path}: no verified success on {owner}; unchanged")
            continue
        refreshed = TrajectorySet(name=memories[path].name, episodes=episodes)
        files[path] = json.dumps(refreshed.model_dump(mode="json"), indent=2) + "\n"
        n = len(memories[path].episodes)
        notes.append(f"{path}: {n} episode(s) replaced by {len(episodes)} ({owner})")
    return _finish(bundle, files, kit, gateway, "refresh-episodes", notes)


PROCEDURES: dict[str, Procedure] = {
    "rebind-skills": rebind_skills,
    "rewrite-recipes": rewrite_recipes,
    "refresh-episodes": refresh_episodes,
}
"""The built-in procedures by name."""

_BY_KIND = {
    ArtifactKind.typed_skill: "rebind-skills",
    ArtifactKind.agent_skill: "rebind-skills",
    ArtifactKind.prompt_recipe: "rewrite-recipes",
    ArtifactKind.trajectory: "refresh-episodes",
}


def default_procedures(bundle: Bundle) -> list[str]:
    """The built-in procedures that apply to ``bundle``'s artifact kinds, in artifact order."""
    return list(dict.fromkeys(_BY_KIND[a.kind] for a in bundle.manifest.artifacts))


def adapt_bundle(
    bundle: Bundle,
    kit: AdaptationKit,
    gateway: MeteredGateway,
    procedures: Sequence[str | Procedure] | None = None,
) -> AdaptedBundle:
    """Adapt ``bundle`` to the kit's target: ``procedures`` (names of built-in ones, or
    procedures; default: ``default_procedures``) run in turn on one gateway, each on the
    previous one's output. The record links to ``bundle`` and carries the whole cost; the
    gateway is finished."""
    chosen = default_procedures(bundle) if procedures is None else list(procedures)
    current, names, notes = bundle, list[str](), list[str]()
    for step in chosen:
        if isinstance(step, str) and step not in PROCEDURES:
            raise AdaptError(
                f"unknown adaptation procedure {step!r}",
                f"built-in procedures: {', '.join(PROCEDURES)}",
            )
        run = PROCEDURES[step] if isinstance(step, str) else step
        out = run(current, kit, gateway)
        current = out.bundle
        names.append(out.procedure)
        notes += [f"{out.procedure}: {n}" for n in out.notes]
    return AdaptedBundle.make(
        bundle,
        current,
        target=kit.target_id,
        procedure="+".join(names) or "none",
        cost=gateway.finish(),
        notes=tuple(notes) or ("no procedure applies: the bundle is unchanged",),
    )
