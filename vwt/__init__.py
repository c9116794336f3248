"""The thin ``vwt`` command-line interface. The library lives in the other packages."""

__all__: list[str] = []
