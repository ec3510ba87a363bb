"""The dev workspace's token (an admin of it): MEMHIVE_DEV_TOKEN, or one kept in the data dir."""

from __future__ import annotations

import secrets
from pathlib import Path

from memhive_adapters.private_files import private_directory, write_private
from memhive_domain.principals import Principal, Role
from memhive_domain.tokens import format_token
from memhive_ports import TokenDirectory
from memhive_settings import MemhiveSettings


async def ensure_dev_token(settings: MemhiveSettings, tokens: TokenDirectory) -> str:
    token = _configured_or_kept(settings)
    principal = Principal(settings.dev_workspace, settings.dev_user, Role.ADMIN)
    return await tokens.issue(principal, token)


def _configured_or_kept(settings: MemhiveSettings) -> str:
    if settings.dev_token is not None:
        return settings.dev_token.get_secret_value()
    path = Path(settings.data_dir) / "dev-token"
    if path.exists():
        return path.read_text().strip()
    # A memhive token (`mh_<id>_<secret>`): recognisable, listable, never starting with "-".
    token = format_token(secrets.token_hex(8), secrets.token_urlsafe(32))
    private_directory(path.parent)
    write_private(path, token + "\n")
    return token
