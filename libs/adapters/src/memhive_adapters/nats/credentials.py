"""How a process proves who it is to NATS: a user's credentials, from settings or from the
ones `memhive run` generated in the data directory, turned into nats-py connect options."""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

from memhive_contracts.bus_permissions import inbox_prefix
from memhive_settings import MemhiveSettings, NatsSettings

SEED_SUFFIX = ".nk"


@dataclass(frozen=True, slots=True)
class BusCredentials:
    """One bus user's credentials; all empty means an anonymous connection (a server without
    authorization, e.g. a developer's own nats-server)."""

    user: str  # the role in memhive_contracts.bus_permissions; sets the inbox prefix
    username: str | None = None
    password: str | None = None
    token: str | None = None
    nkey_seed: str | None = None
    creds_file: Path | None = None
    tls: ssl.SSLContext | None = None

    @property
    def anonymous(self) -> bool:
        return not (self.username or self.token or self.nkey_seed or self.creds_file)

    def connect_options(self) -> dict:
        options: dict = {"inbox_prefix": inbox_prefix(self.user)}
        if self.username is not None:
            options |= {"user": self.username, "password": self.password or ""}
        if self.token is not None:
            options["token"] = self.token
        if self.nkey_seed is not None:
            options["nkeys_seed_str"] = self.nkey_seed
        if self.creds_file is not None:
            options["user_credentials"] = str(self.creds_file)
        if self.tls is not None:
            options["tls"] = self.tls
        return options


def bus_credentials(settings: MemhiveSettings, user: str) -> BusCredentials:
    """Credentials from settings when any are set (distributed mode: one service per
    process), else the ones generated for `user` in the bus directory, else anonymous."""
    nats = settings.nats
    tls = tls_context(nats)
    if _has_credentials(nats):
        return BusCredentials(
            user,
            username=nats.user,
            password=_secret(nats.password),
            token=_secret(nats.token),
            nkey_seed=_secret(nats.nkey_seed),
            creds_file=nats.creds_file,
            tls=tls,
        )
    seed_file = bus_dir(settings) / f"{user}{SEED_SUFFIX}"
    if seed_file.is_file():
        return BusCredentials(user, nkey_seed=seed_file.read_text().strip(), tls=tls)
    return BusCredentials(user, tls=tls)


def bus_dir(settings: MemhiveSettings) -> Path:
    return settings.nats.credentials_dir or settings.data_dir / "bus"


def tls_context(nats: NatsSettings) -> ssl.SSLContext | None:
    """Server verified against `tls_ca_file` (else the system roots); a client certificate
    when `tls_cert_file` and `tls_key_file` are set (servers that verify clients)."""
    if not (nats.tls_ca_file or nats.tls_cert_file or nats.url.startswith("tls://")):
        return None
    context = ssl.create_default_context(cafile=str(nats.tls_ca_file) if nats.tls_ca_file else None)
    if nats.tls_cert_file is not None:
        if nats.tls_key_file is None:
            raise ValueError("nats.tls_cert_file needs nats.tls_key_file")
        context.load_cert_chain(str(nats.tls_cert_file), str(nats.tls_key_file))
    return context


def _has_credentials(nats: NatsSettings) -> bool:
    return any((nats.user, nats.token, nats.nkey_seed, nats.creds_file))


def _secret(value) -> str | None:
    return value.get_secret_value() if value is not None else None
