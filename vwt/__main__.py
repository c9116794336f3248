"""``python -m vwt``."""

from vwt.cli import main

main()
