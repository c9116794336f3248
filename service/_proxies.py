"""Which reverse proxies the service believes about the client's address (none by default)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from service.errors import ServiceError


def trusted_proxies(values: Iterable[str]) -> tuple[str, ...]:
    """``values`` (addresses such as ``127.0.0.1`` or networks such as ``10.0.0.0/8``) in the
    normal form uvicorn compares with a connection's peer.

    Only a connection from one of these has its ``X-Forwarded-For`` believed, for the access
    log and the per-address limits; with none (the default) every client is the address it
    connects from, so a local process cannot pose as anyone. ``*`` (everyone) is refused: any
    client could then forge its address.
    """
    out: list[str] = []
    for value in values:
        text = value.strip()
        try:
            net = ipaddress.ip_network(text, strict=False)
        except ValueError:
            raise ServiceError(
                f"trusted proxy {value!r} is not an IP address or network",
                "name the proxy's address as the service sees it, e.g. --trusted-proxy "
                "127.0.0.1 (repeat the option for more, or give a network like 10.0.0.0/8)",
            ) from None
        single = net.num_addresses == 1
        out.append(str(net.network_address) if single else str(net))
    return tuple(dict.fromkeys(out))
