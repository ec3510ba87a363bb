"""TLS settings reach the connection: a server with a certificate only memhive's CA file
vouches for is reached with MEMHIVE_NATS__TLS_CA_FILE, and refused without it."""

from __future__ import annotations

import datetime
import ipaddress
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from memhive_adapters.nats.embedded_auth import EmbeddedBusAuth
from memhive_adapters.nats.embedded_server import EmbeddedNatsServer
from memhive_adapters.nats.refusal import UntrustedServer
from memhive_adapters.runtime.infrastructure import open_infrastructure
from memhive_settings import MemhiveSettings

from tests.integration.conftest import free_port

pytestmark = pytest.mark.timeout(120)


def _self_signed(directory: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "memhive-test-nats")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "server.pem", directory / "server.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


async def test_tls_settings_reach_the_server_and_an_unknown_certificate_is_refused(
    tmp_path: Path,
) -> None:
    cert, key = _self_signed(tmp_path)
    auth = EmbeddedBusAuth(tmp_path / "bus")
    config = auth.ensure().read_text() + f'tls {{cert_file: "{cert}", key_file: "{key}"}}\n'
    (tmp_path / "tls.conf").write_text(config)
    port = free_port()
    server = EmbeddedNatsServer(tmp_path / "nats", port=port, config_file=tmp_path / "tls.conf")
    nats = {"url": f"tls://127.0.0.1:{port}", "credentials_dir": auth.directory}
    async with server:
        trusted = MemhiveSettings(data_dir=tmp_path, nats=nats | {"tls_ca_file": cert})
        infra = await open_infrastructure(trusted, name="tls")
        try:
            assert infra.nats.is_connected
        finally:
            await infra.close()

        untrusted = MemhiveSettings(data_dir=tmp_path, nats=nats)
        with pytest.raises(UntrustedServer, match="TLS certificate"):
            await open_infrastructure(untrusted, name="tls-untrusted")
