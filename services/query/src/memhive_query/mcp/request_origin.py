"""Which Host and Origin headers `/mcp` answers: the MCP transport's guard against DNS
rebinding (a web page whose name was rebound to this machine's address, calling the local
server from the user's browser).

The MCP spec: a server MUST validate the Origin header of incoming requests and answer an
invalid one 403, and a local server should accept only its own names. So:

- **Origin**, whenever a request carries one (browsers do; agents' MCP clients send none):
  a loopback origin (any scheme of http and https, any port) or one the operator lists
  (`MEMHIVE_QUERY__MCP_ALLOWED_ORIGINS`). Anything else, `null` included, is answered 403.
- **Host**, when the gateway listens on loopback (the default, `make run`) or the operator
  lists hosts (`MEMHIVE_QUERY__MCP_ALLOWED_HOSTS`): a rebound name reaches the server under
  its own Host, so only loopback names (and the listed ones) are served; anything else is
  answered 421, as the MCP SDK answers it. Listening on another interface with no list
  (Kubernetes, behind an ingress), any Host is served: the name clients use is the
  ingress's, which memhive does not know, and a bearer token guards every request anyway.

The MCP SDK's own check (`TransportSecuritySettings`) checks Host and Origin together or
not at all, so it cannot check Origin on every interface; this keeps its patterns (`:*` is
any port; a host listed without a port is any port too, an origin without one its default).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
SCHEMES = ("http", "https")
_ANY_PORT = "*"


@dataclass(frozen=True)
class Refusal:
    status: int
    detail: str


@dataclass(frozen=True)
class McpOrigins:
    """`hosts`: the (name, port) pairs served, port None or "*" for any; None: any Host.
    `origins`: the (scheme, name, port) triples served, likewise."""

    hosts: frozenset[tuple[str, str | None]] | None
    origins: frozenset[tuple[str, str, str | None]]

    @classmethod
    def for_gateway(
        cls, listens_on: str, hosts: Sequence[str] | None = None, origins: Sequence[str] = ()
    ) -> McpOrigins:
        """What a gateway listening on `listens_on` serves, with the operator's lists."""
        served_hosts = None
        if hosts is not None or is_loopback(listens_on):
            served_hosts = frozenset(map(_host_entry, (*LOOPBACK_NAMES, *(hosts or ()))))
        loopback = [f"{scheme}://{name}:*" for scheme in SCHEMES for name in LOOPBACK_NAMES]
        return cls(served_hosts, frozenset(map(_origin_entry, (*loopback, *origins))))

    def refusal(self, host: str | None, origin: str | None) -> Refusal | None:
        """None when a request with these headers is served."""
        if self.hosts is not None and not _matches(_split_host(host or ""), self.hosts):
            return Refusal(
                421,
                f"MCP is not served for the Host {host!r}: list it in "
                "MEMHIVE_QUERY__MCP_ALLOWED_HOSTS (a guard against DNS rebinding)",
            )
        if origin is not None and not _origin_served(origin, self.origins):
            return Refusal(
                403,
                f"MCP is not served for the Origin {origin!r}: list it in "
                "MEMHIVE_QUERY__MCP_ALLOWED_ORIGINS (a guard against DNS rebinding)",
            )
        return None


def is_loopback(listens_on: str) -> bool:
    name = listens_on.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _host_entry(entry: str) -> tuple[str, str | None]:
    name, port = _split_host(entry)
    if not name:
        raise ValueError(f"not a host name: {entry!r}")
    return name, port or _ANY_PORT


def _origin_entry(entry: str) -> tuple[str, str, str | None]:
    scheme, separator, rest = entry.partition("://")
    name, port = _split_host(rest)
    if not (separator and scheme.lower() in SCHEMES and name) or "/" in rest:
        raise ValueError(f"not an origin (http(s)://name[:port]): {entry!r}")
    return scheme.lower(), name, port


def _split_host(value: str) -> tuple[str, str | None]:
    """("name", "port") of `name[:port]`, `[v6][:port]` alike; the name lower-cased."""
    value = value.strip().lower()
    if value.startswith("["):
        name, bracket, rest = value.partition("]")
        if not bracket:
            return "", None
        return name + "]", rest[1:] if rest.startswith(":") else None
    name, colon, port = value.partition(":")
    return name, port if colon else None


def _matches(host: tuple[str, str | None], served: frozenset[tuple[str, str | None]]) -> bool:
    name, port = host
    return bool(name) and ((name, port) in served or (name, _ANY_PORT) in served)


def _origin_served(origin: str, served: frozenset[tuple[str, str, str | None]]) -> bool:
    parts = urlsplit(origin.strip())
    name, port = _split_host(parts.netloc)
    if not name or parts.path or parts.query or parts.username is not None:
        return False
    scheme = parts.scheme.lower()
    return (scheme, name, port) in served or (scheme, name, _ANY_PORT) in served
