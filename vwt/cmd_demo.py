"""`vwt demo`: a whole release cycle on the embedded default."""

from pathlib import Path


def demo(home: Path = Path(".vwt-demo")) -> None:
    """Run a whole release cycle on the embedded default."""
    raise NotImplementedError("the demo is being built")
