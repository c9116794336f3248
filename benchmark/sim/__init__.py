"""The ``sim`` model provider: simulated model versions and providers served through litellm.

Sim models exist to exercise the framework offline. Their numbers say nothing about real models.
"""

from benchmark.sim._catalogue import SIM_MODELS, SimModelSpec, sim_model
from benchmark.sim._provider import PROVIDER, register_sim_provider

__all__ = ["PROVIDER", "SIM_MODELS", "SimModelSpec", "register_sim_provider", "sim_model"]
