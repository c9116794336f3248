"""The ``sim`` model provider: simulated model versions and providers served through litellm.

Sim models exist to exercise the framework offline. Their numbers say nothing about real models.
"""

from benchmark.sim._catalogue import PROVIDER, SIM_MODELS, SimModelSpec, sim_model
from benchmark.sim._faults import Fault, FaultPlan, ServerStats
from benchmark.sim._server import SimServer


def register_sim_provider() -> None:
    """Make ``sim/<model>`` strings resolvable by litellm (idempotent; imports litellm)."""
    from benchmark.sim._provider import register

    register()


__all__ = [
    "PROVIDER",
    "SIM_MODELS",
    "Fault",
    "FaultPlan",
    "ServerStats",
    "SimModelSpec",
    "SimServer",
    "register_sim_provider",
    "sim_model",
]
