"""A family the sim engine has never seen: a knowledge pack is all it takes.

A tiny lighting family (find a room by name, then set its light level as a fraction), its
backend written to a temporary file, and its knowledge pack: sim models solve its tasks through
the real trial path (litellm, harness, backend subprocess, verifier, oracle) with no change to
the engine, say they cannot help without the pack, and are caught by the oracle when they miss
a change of the level's scale.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import benchmark.sim._pack
from benchmark import FAMILIES, Family, Planted, Task, VerifierResult
from benchmark.sim import (
    Action,
    FromResult,
    Kind,
    KnowledgePack,
    Slot,
    Step,
    next_move,
    packs,
    register_pack,
    sim_model,
)
from drift import FractionPercent, InterfaceVersion, Tool, ToolCall, ToolSet
from tests.benchmark.sim._experiment import run_arm, tool_calls, use_model, version

ROOMS = ("kitchen", "porch", "hallway", "study")
LEVELS = (10, 25, 40, 60, 75)

TOOLS = ToolSet(
    tools=(
        Tool(
            name="find_room",
            description="Look up a room by its name. Returns its room id and light level.",
            input_schema={
                "type": "object",
                "properties": {"name": {"type": "string", "description": "Room name."}},
                "required": ["name"],
                "additionalProperties": False,
            },
        ),
        Tool(
            name="set_light",
            description="Set the light level of a room.",
            input_schema={
                "type": "object",
                "properties": {
                    "room_id": {"type": "string", "description": "Room id, e.g. 'RM-2'."},
                    "level": {
                        "type": "number",
                        "description": "Brightness as a fraction between 0 and 1.",
                    },
                },
                "required": ["room_id", "level"],
                "additionalProperties": False,
            },
        ),
    )
)

BACKEND = """
import copy


class BackendError(Exception):
    pass


class Backend:
    def __init__(self, state):
        self.state = copy.deepcopy(state)

    def dump(self):
        return copy.deepcopy(self.state)

    def call(self, tool, args):
        rooms = self.state["rooms"]
        if tool == "find_room":
            for room_id, room in rooms.items():
                if room["name"] == args["name"].strip().lower():
                    return {"room_id": room_id, **room}
            raise BackendError("no room named " + repr(args["name"]))
        if tool == "set_light":
            if args["room_id"] not in rooms:
                raise BackendError("no room " + repr(args["room_id"]))
            rooms[args["room_id"]]["level"] = args["level"]
            return {"room_id": args["room_id"], "level": args["level"]}
        raise BackendError("unknown tool " + repr(tool))
"""


class Lights(Family):
    """Dim a room's lights to a stated level, or switch them off."""

    id = "toy_lights"
    env_id = "toy-lights"
    generator_version = "toy-lights-1"
    verifier_version = "toy-lights-1"
    splits = ("sealed",)
    effectful_tools = ("set_light",)

    def __init__(self, backend: Path) -> None:
        self.backend = backend

    def generate(self, split: str, index: int, seed: int) -> Task:
        rng = random.Random(f"{seed}/{index}")
        numbers = rng.sample(range(1, 100), len(ROOMS))
        rooms = {
            f"RM-{n}": {"name": name, "level": 1.0} for n, name in zip(numbers, ROOMS, strict=True)
        }
        room_id, room = rng.choice(sorted(rooms.items()))
        if index % 2:
            kind, level, text = "off", 0.0, f"Please switch off the {room['name']} lights."
        else:
            percent = rng.choice(LEVELS)
            kind, level = "dim", percent / 100
            text = f"Dim the {room['name']} lights to {percent}%."
        return Task(
            id=f"{self.id}/{split}/{index:04d}",
            family=self.id,
            split=split,
            index=index,
            seed=seed,
            generator_version=self.generator_version,
            kind=kind,
            instruction=text,
            initial_state={"rooms": rooms},
            reference_calls=(
                ToolCall(name="set_light", arguments={"room_id": room_id, "level": level}),
            ),
        )

    def base_tools(self) -> ToolSet:
        return TOOLS

    def interface_versions(self) -> dict[str, InterfaceVersion]:
        return {"toy-lights@1": InterfaceVersion(id="toy-lights@1", env=self.env_id, label="1")}

    def backend_file(self) -> Path:
        return self.backend

    def verify(self, task: Task, end_state: dict[str, Any]) -> VerifierResult:
        (call,) = task.reference_calls
        want, room = call.arguments["level"], end_state["rooms"][call.arguments["room_id"]]
        others = [r for k, r in end_state["rooms"].items() if k != call.arguments["room_id"]]
        reasons = [f"level {room['level']!r} != expected {want!r}"] if room["level"] != want else []
        reasons += [f"{r['name']} changed" for r in others if r["level"] != 1.0]
        return VerifierResult(passed=not reasons, reasons=tuple(reasons))

    def end_state(self, task: Task, calls: Sequence[ToolCall]) -> dict[str, Any]:
        rooms = {k: dict(v) for k, v in task.initial_state["rooms"].items()}
        for call in calls:
            rooms[call.arguments["room_id"]]["level"] = call.arguments["level"]
        return {"rooms": rooms}

    def planted(self, task: Task) -> list[Planted]:
        (call,) = task.reference_calls
        wrong = ToolCall(name=call.name, arguments={**call.arguments, "level": 0.5})
        return [Planted(name="wrong level", check="level", calls=(wrong,))]

    def effect_key(self, call: ToolCall) -> tuple[Any, ...]:
        return (call.name, call.arguments.get("room_id"), call.arguments.get("level"))


_room = Slot("id", results=(FromResult("find_room", ("room", "id")),))
_name = Slot("text", stated=r"the (\w+) lights")
_set = Step("set_light", {"room": "room", "level": "level"}, core=True)

PACK = KnowledgePack(
    family=Lights.id,
    actions={
        "find_room": Action({"find": 2, "room": 2, "look": 1}, {"name": {"name": 3, "room": 1}}),
        "set_light": Action(
            {"light": 3, "set": 1, "level": 1},
            {"room": {"room": 3, "id": 1}, "level": {"level": 3, "brightness": 2}},
        ),
    },
    kinds=(
        Kind(
            "dim",
            {"dim": 3},
            {"name": _name, "room": _room, "level": Slot("percent", stated=r"(\d+)%")},
            (_set,),
        ),
        Kind(
            "off",
            {"off": 3, "switch": 1},
            {"name": _name, "room": _room, "level": Slot("percent", value=0.0)},
            (_set,),
        ),
    ),
    concepts={},
    remembered=lambda: {t.name: t.to_openai()["function"] for t in TOOLS.tools},
)


@pytest.fixture
def lights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Lights:
    """The toy family, known to the registry for this test (its pack is not registered)."""
    backend = tmp_path / "lights_backend.py"
    backend.write_text(BACKEND)
    fam = Lights(backend)
    monkeypatch.setitem(FAMILIES, fam.id, fam)
    # registered packs last for the process: a test's registration ends with the test
    monkeypatch.setattr(benchmark.sim._pack, "_PACKS", dict(benchmark.sim._pack._PACKS))
    return fam


def test_a_knowledge_pack_is_all_a_new_family_needs(
    lights: Lights, monkeypatch: pytest.MonkeyPatch
) -> None:
    register_pack(PACK)
    model = use_model(monkeypatch, "toy-reader")
    arm = run_arm(model, fam=lights, interface=version(env=lights.env_id), tasks=12)
    assert {t.kind for t in arm.tasks} == {"dim", "off"}
    assert arm.success == 1.0, [r.verifier for r in arm.results]
    for result in arm.results:
        assert [name for name, _ in tool_calls(result)] == ["find_room", "set_light"]


def test_without_its_pack_a_sim_model_cannot_help(
    lights: Lights, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = use_model(monkeypatch, "toy-reader")
    arm = run_arm(model, fam=lights, interface=version(env=lights.env_id), tasks=12)
    assert arm.success == 0.0
    assert {r.run.final for r in arm.results} == {"I do not know how to help with this request."}
    assert not any(tool_calls(r) for r in arm.results)


def test_the_pack_acts_on_a_changed_scale_through_the_shared_conventions(
    lights: Lights, monkeypatch: pytest.MonkeyPatch
) -> None:
    register_pack(PACK)
    percent = version(FractionPercent(tool="set_light", field="level"), env=lights.env_id)
    misser = use_model(monkeypatch, "toy-misser", read_conventions=0.0, recover=0.0)
    reader = use_model(monkeypatch, "toy-reader")
    missed = run_arm(misser, fam=lights, interface=percent, tasks=12)
    read = run_arm(reader, fam=lights, interface=percent, tasks=12)
    dims = sum(t.kind == "dim" for t in missed.tasks)  # switching off reads 0 either way
    assert missed.critical == dims > 0, missed.outcomes
    assert read.critical == 0
    assert read.success == 1.0, [r.verifier for r in read.results]


def test_a_request_goes_to_the_pack_of_the_served_tools(
    lights: Lights, monkeypatch: pytest.MonkeyPatch
) -> None:
    packs()  # the built-in families' packs come first, as in any run
    register_pack(PACK)
    model = use_model(monkeypatch, "toy-reader")
    messages = [
        {"role": "system", "content": ""},
        {"role": "user", "content": "It is getting late: dim the kitchen lights to 40%."},
    ]
    move = next_move(sim_model(model), 0, messages, [t.to_openai() for t in TOOLS.tools])
    assert move.tool == "find_room", move
