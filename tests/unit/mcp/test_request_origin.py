"""Which Host and Origin headers /mcp answers (memhive_query/mcp/request_origin.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from memhive_query.mcp.request_origin import LOOPBACK_NAMES, McpOrigins, is_loopback

ports = st.one_of(st.none(), st.integers(1, 65535).map(str))
loopback_names = st.sampled_from(LOOPBACK_NAMES)
# Host names a rebound page could arrive under: anything but a loopback name.
foreign_names = st.from_regex(r"[a-z][a-z0-9-]{0,20}(\.[a-z]{2,6}){0,2}", fullmatch=True).filter(
    lambda name: name not in LOOPBACK_NAMES
)


def with_port(name: str, port: str | None) -> str:
    return name if port is None else f"{name}:{port}"


LOCAL = McpOrigins.for_gateway("127.0.0.1")


@given(loopback_names, ports, st.sampled_from(["http", "https"]), ports, st.booleans())
def test_a_local_gateway_serves_its_loopback_names_and_origins(
    name: str, port: str | None, scheme: str, origin_port: str | None, upper: bool
) -> None:
    host = with_port(name, port)
    origin = f"{scheme}://{with_port(name, origin_port)}"
    if upper:
        host, origin = host.upper(), origin.upper()
    assert LOCAL.refusal(host, None) is None
    assert LOCAL.refusal(host, origin) is None


@given(foreign_names, ports)
def test_a_local_gateway_refuses_a_rebound_name_421(name: str, port: str | None) -> None:
    refused = LOCAL.refusal(with_port(name, port), None)
    assert refused is not None and refused.status == 421
    assert "MEMHIVE_QUERY__MCP_ALLOWED_HOSTS" in refused.detail


@given(foreign_names, ports, st.booleans())
def test_any_gateway_refuses_a_foreign_origin_403(name: str, port: str | None, local: bool) -> None:
    gateway = LOCAL if local else McpOrigins.for_gateway("0.0.0.0")
    refused = gateway.refusal("localhost:8080", f"http://{with_port(name, port)}")
    assert refused is not None and refused.status == 403
    assert "MEMHIVE_QUERY__MCP_ALLOWED_ORIGINS" in refused.detail


@given(foreign_names, ports)
def test_a_gateway_on_another_interface_serves_any_host_without_an_origin(
    name: str, port: str | None
) -> None:
    assert McpOrigins.for_gateway("0.0.0.0").refusal(with_port(name, port), None) is None


@pytest.mark.parametrize(
    "origin",
    [
        "null",  # a sandboxed frame, a file:// page
        "http://evil.example@localhost:8080",  # a user-info prefix
        "http://localhost:8080/path",
        "http://localhost.evil.example",
        "ftp://localhost",
        "localhost:8080",
        "",
    ],
)
def test_what_is_not_a_loopback_origin_is_refused(origin: str) -> None:
    refused = LOCAL.refusal("localhost:8080", origin)
    assert refused is not None and refused.status == 403


@pytest.mark.parametrize("host", ["", "[::1", "localhost.evil.example", "127.0.0.1.nip.io:80"])
def test_what_is_not_a_loopback_host_is_refused(host: str) -> None:
    refused = LOCAL.refusal(host, None)
    assert refused is not None and refused.status == 421


def test_no_host_header_is_refused_by_a_local_gateway() -> None:
    refused = LOCAL.refusal(None, None)
    assert refused is not None and refused.status == 421


def test_listed_hosts_are_served_beside_loopback_ones_on_any_interface() -> None:
    for listens_on in ("127.0.0.1", "0.0.0.0"):
        gateway = McpOrigins.for_gateway(
            listens_on, hosts=["memhive.example.com", "mcp.example.com:8443"]
        )
        assert gateway.refusal("memhive.example.com", None) is None
        assert gateway.refusal("Memhive.Example.com:443", None) is None  # a name alone: any port
        assert gateway.refusal("mcp.example.com:8443", None) is None
        assert gateway.refusal("localhost:8080", None) is None
        assert gateway.refusal("mcp.example.com:9000", None).status == 421
        assert gateway.refusal("evil.example", None).status == 421  # a list: checked anywhere


def test_listed_origins_are_served_exactly_or_on_any_port_with_a_star() -> None:
    gateway = McpOrigins.for_gateway(
        "127.0.0.1", origins=["https://app.example.com", "http://tools.example.com:*"]
    )
    assert gateway.refusal("localhost", "https://app.example.com") is None
    assert gateway.refusal("localhost", "HTTPS://APP.EXAMPLE.COM") is None
    assert gateway.refusal("localhost", "http://tools.example.com:3000") is None
    assert gateway.refusal("localhost", "http://tools.example.com") is None
    assert gateway.refusal("localhost", "https://app.example.com:8443").status == 403
    assert gateway.refusal("localhost", "http://app.example.com").status == 403
    assert gateway.refusal("localhost", "https://tools.example.com:3000").status == 403


@pytest.mark.parametrize("address", ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost"])
def test_loopback_addresses(address: str) -> None:
    assert is_loopback(address)


@pytest.mark.parametrize("address", ["0.0.0.0", "::", "10.0.0.7", "memhive", "192.168.1.2"])
def test_other_addresses(address: str) -> None:
    assert not is_loopback(address)
