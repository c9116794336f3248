"""The request seed: common random numbers shared by every arm, sampling noise per arm.

A trial's seed depends on (cycle seed, task, trial index) only. The harness sends each request
``request_seed(trial_seed, arm)``: its upper bits are the trial seed (shared by every arm of the
trial, so paired arms share their draws), its low ``ARM_BITS`` bits name the arm (so sampling
noise differs between arms, and an A/A comparison shows noise rather than an identity).
A real provider sees one integer seed; the sim splits it with ``shared_seed``.
"""

from __future__ import annotations

from benchmark._task import stable_int

ARM_BITS = 20
_TRIAL_BITS = 32  # request seeds stay below 2**52, exact in JSON numbers


def request_seed(trial_seed: int, arm: str) -> int:
    """The seed the harness sends for every request of a trial in arm ``arm``
    (the bundle hash of an arm with artifacts, or 'baseline')."""
    shared = trial_seed % 2**_TRIAL_BITS
    return (shared << ARM_BITS) | (stable_int("arm", arm) % 2**ARM_BITS)


def shared_seed(seed: int) -> int:
    """The part of a request seed that every arm of a trial shares."""
    return seed >> ARM_BITS
