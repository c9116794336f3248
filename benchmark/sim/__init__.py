"""The ``sim`` model provider: simulated model versions and providers served through litellm.

Sim models exist to exercise the framework offline. Their numbers say nothing about real models.
"""

from benchmark.sim._catalogue import PROVIDER, SIM_MODELS, SimModelSpec, sim_model


def register_sim_provider() -> None:
    """Make ``sim/<model>`` strings resolvable by litellm (idempotent; imports litellm)."""
    from benchmark.sim._provider import register

    register()


__all__ = ["PROVIDER", "SIM_MODELS", "SimModelSpec", "register_sim_provider", "sim_model"]
