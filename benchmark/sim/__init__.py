"""The ``sim`` model provider: simulated model versions and providers served through litellm,
in process (``sim/<model>``) or over loopback HTTP in three providers' wire formats.

An engine that knows no family, plus one knowledge pack per family (``KnowledgePack``).
Sim models exist to exercise the framework offline. Their numbers say nothing about real models.
"""

from benchmark.sim._catalogue import FORMATS, PROVIDER, SIM_MODELS, SimModelSpec, sim_model
from benchmark.sim._engine import Move, next_move
from benchmark.sim._faults import Fault, FaultPlan, ServerStats
from benchmark.sim._pack import (
    Action,
    FromResult,
    FromRow,
    Kind,
    KnowledgePack,
    LineTotal,
    Slot,
    Step,
    packs,
    register_pack,
    use_family_packs,
)
from benchmark.sim._server import SimServer
from benchmark.sim._wire import SEED_HEADER


def register_sim_provider() -> None:
    """Make ``sim/<model>`` strings resolvable by litellm (idempotent; imports litellm)."""
    from benchmark.sim._provider import register

    register()


__all__ = [
    "FORMATS",
    "PROVIDER",
    "SEED_HEADER",
    "SIM_MODELS",
    "Action",
    "Fault",
    "FaultPlan",
    "FromResult",
    "FromRow",
    "Kind",
    "KnowledgePack",
    "LineTotal",
    "Move",
    "ServerStats",
    "SimModelSpec",
    "SimServer",
    "Slot",
    "Step",
    "next_move",
    "packs",
    "register_pack",
    "register_sim_provider",
    "sim_model",
    "use_family_packs",
]
