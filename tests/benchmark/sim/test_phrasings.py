"""Requests as written by others (issue 25, item 5): each family's second set of phrasings,
written independently of its generator's, is understood at the rate the model's
``understand`` parameter says, the same as the generator's own; and no pack matches the
generator's templates."""

from __future__ import annotations

import importlib
import math
import re

import pytest

from benchmark import family, serve
from benchmark._seeds import request_seed
from benchmark.sim import packs, sim_model
from benchmark.sim._engine import next_move
from tests.benchmark.sim._experiment import version

FAMILIES = {
    "support_ops": "support_ops",
    "reconciliation": "reconciliation",
    "research_evidence": "research",
    "code_maint": "code_maint",
}
N = 160  # tasks per family and phrasing set


def _lost(fam_id: str, phrasings: str, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many of N first turns of sim/acme-2 say it does not know how to help."""
    module = FAMILIES[fam_id]
    generator = importlib.import_module(f"benchmark.{module}._generator")
    written = importlib.import_module(f"benchmark.{module}._phrasings")
    with monkeypatch.context() as m:
        m.setattr(generator, "PHRASINGS", getattr(written, phrasings))
        fam = family(fam_id)
        tasks = fam.tasks("sealed", N, 3)
    tools = [t.to_openai() for t in serve(fam.env_id, version(env=fam.env_id)).tools.tools]
    spec = sim_model("acme-2")
    lost = 0
    for i, task in enumerate(tasks):
        messages = [{"role": "user", "content": task.instruction}]
        move = next_move(spec, request_seed(i + 1, "baseline"), messages, tools)
        lost += move.tool is None and move.text.startswith("I do not know")
    return lost


@pytest.mark.parametrize("fam_id", sorted(FAMILIES))
def test_second_phrasings_are_understood_at_the_parameterised_rate(
    fam_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = 1 - sim_model("acme-2").understand
    bound = N * p + 3.5 * math.sqrt(N * p * (1 - p))  # far past the noise of N draws
    first = _lost(fam_id, "PHRASINGS", monkeypatch)
    second = _lost(fam_id, "SECOND_PHRASINGS", monkeypatch)
    assert 0 < second <= bound, (first, second, bound)
    assert abs(first - second) <= 3.5 * math.sqrt(2 * N * p), (first, second)


def test_no_pack_matches_its_generators_templates() -> None:
    for pack in packs():
        module = FAMILIES.get(pack.family)
        if module is None:
            continue
        templates = importlib.import_module(f"benchmark.{module}._phrasings").PHRASINGS
        words = set()
        for texts in templates.values():
            for text in texts:
                for run in re.split(r"\{\w+\}|[^a-z ]", text.lower()):
                    w = run.split()
                    words |= {" ".join(w[i : i + 3]) for i in range(len(w) - 2)}
        rules = [s.stated for k in pack.kinds for s in k.slots.values() if s.stated]
        for rule in rules:
            for phrase in words:  # a regex spelling out three template words in a row
                assert phrase not in rule.lower(), (pack.family, rule, phrase)
