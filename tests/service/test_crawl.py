"""Nothing about the hidden targets is reachable over HTTP before the reveal: every route of the
app, called as anonymous, as a submitter and as the operator, in states open and frozen_run,
answers without a single value of a hidden target condition."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import product

import httpx
import pytest
from starlette.routing import Route

from conditions import Condition, Cycle, CycleState
from service import ServiceLimits, create_app
from submissions import reference_bundles
from tests.service.test_app import Served, serving
from tests.submissions.conftest import open_cycle_at, spec_with

LIMITS = ServiceLimits(requests_per_minute=100_000, uploads_per_minute=1000)
RELEASE_PATHS = [
    "release.json",
    "report.html",
    "commitment.json",
    "trials.jsonl",
    "../operator/targets.json",
    "%2e%2e/operator/targets.json",
    "..%2f..%2fvwt.sqlite",
]
"""Values of ``{path}`` in /release/{path}: published names, and ways out of public/."""


def hidden_values(cycle: Cycle) -> set[str]:
    """What a target condition holds that the public source condition and commitment do not:
    model strings, providers, tool-interface versions, harnesses and families (the held-out
    families are named in the commitment, so only others would count)."""
    source = cycle.source
    public = cycle.paths.commitment.read_text()
    values: set[str] = set()
    for target in cycle.targets():
        c: Condition = target.condition
        values.add(c.model.model)
        values.add(c.provider)
        values.update(c.tool_interface.values())
        values.add(c.harness)
        values.update(f for f in c.task_family.families if f not in public)
    seen = {
        source.model.model,
        source.provider,
        source.harness,
        *source.tool_interface.values(),
    }
    return values - seen


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, str]]:
    """An open cycle served, with one submission of alice; and its bundle hash."""
    cycle = open_cycle_at(tmp_path_factory.mktemp("crawl") / "home", spec_with())
    with serving(cycle, ["alice"], LIMITS) as s:
        answer = s.client("alice").post(
            "/api/v1/submissions", content=reference_bundles()[1].canonical()
        )
        assert answer.status_code == 201
        yield s, answer.json()["receipt"]["receipt"]["bundle_hash"]


def requests_of(route: Route, values: dict[str, list[str]]) -> Iterator[tuple[str, str]]:
    """(method, path) of ``route`` with every combination of ``values`` for its parameters."""
    names = re.findall(r"{(\w+)(?::\w+)?}", route.path)
    for chosen in product(*(values[n] for n in names)):
        path = route.path
        for name, value in zip(names, chosen, strict=True):
            path = re.sub(r"{" + name + r"(:\w+)?}", value, path)
        for method in sorted(route.methods or {"GET"}):
            if method != "HEAD":
                yield method, path
        if "GET" not in (route.methods or set()):
            yield "GET", path  # answered 405, uniformly


@pytest.mark.parametrize("state", [CycleState.open, CycleState.frozen_run])
def test_no_route_answers_with_a_hidden_target_value(
    crawled: tuple[Served, str], state: CycleState
) -> None:
    served, bundle_hash = crawled
    cycle = served.cycle
    if cycle.state != state:
        cycle.transition(state)
    hidden = hidden_values(cycle)
    assert {"harness-v2", "sim/orbit-2", "support-ops@2-units"} <= hidden
    secret = cycle.paths.targets.read_text()
    assert all(v in secret for v in hidden)  # what the grep looks for is there to find
    targets = [t.id for t in cycle.targets()][:3]
    values = {
        "bundle_hash": [bundle_hash, "0" * 64],
        "path": RELEASE_PATHS,
        "submission": ["prompt-recipe@1", "no-artifacts@1"],
        "target": targets,
    }
    body = reference_bundles()[2].canonical()
    routes = [r for r in create_app(cycle.home).routes if isinstance(r, Route)]
    assert len(routes) >= 13
    answered: dict[int, int] = {}
    for who in (None, "alice", "boss"):
        with served.client(who) as client:
            for route in routes:
                for method, path in requests_of(route, values):
                    answer = client.request(
                        method, path, content=body if method == "POST" else None
                    )
                    answered[answer.status_code] = answered.get(answer.status_code, 0) + 1
                    assert_reveals_nothing(answer, hidden, f"{who} {method} {path}")
    print(f"{state.value}: {sum(answered.values())} answers by status {answered}")
    assert answered[200] >= 10 and answered[404] >= 10
    assert CycleState(httpx.get(f"{served.url}/api/v1/cycle").json()["state"]) == state


def assert_reveals_nothing(answer: httpx.Response, hidden: set[str], what: str) -> None:
    """Neither the body nor a header of ``answer`` holds a hidden value."""
    text = answer.content.decode("utf-8", "replace") + str(answer.headers)
    found = sorted(v for v in hidden if v in text)
    assert not found, f"{what} ({answer.status_code}) shows hidden values {found}"
