"""The support-ops generator: seeded, big enough, and dev disjoint from sealed."""

from benchmark.support_ops import SupportOps

FAMILY = SupportOps()


def test_generation_is_deterministic() -> None:
    assert FAMILY.tasks("sealed", 8, 42) == FAMILY.tasks("sealed", 8, 42)


def test_sealed_split_depends_on_the_cycle_seed_and_dev_does_not() -> None:
    assert FAMILY.tasks("sealed", 8, 1) != FAMILY.tasks("sealed", 8, 2)
    assert FAMILY.tasks("dev", 8, 1) == FAMILY.tasks("dev", 8, 2)


def test_dev_and_sealed_share_no_instance() -> None:
    dev, sealed = FAMILY.tasks("dev", 40, 7), FAMILY.tasks("sealed", 40, 7)
    assert len(dev) == len(sealed) == 40
    assert not {t.instruction for t in dev} & {t.instruction for t in sealed}
    dev_orders = {o for t in dev for o in t.initial_state["orders"]}
    sealed_orders = {o for t in sealed for o in t.initial_state["orders"]}
    assert not dev_orders & sealed_orders
    assert len({t.id for t in dev + sealed}) == 80


def test_every_kind_is_drawn_and_amounts_are_positive() -> None:
    tasks = FAMILY.tasks("sealed", 24, 3)
    assert {t.kind for t in tasks} == {
        "duplicate_charge",
        "damaged_item",
        "late_delivery",
        "damaged_by_email",
    }
    for t in tasks:
        refund = t.reference_calls[0]
        assert refund.name == "issue_refund" and refund.arguments["amount_cents"] > 0
        assert refund.arguments["order_id"] in t.initial_state["orders"]
