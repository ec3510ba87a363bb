"""The admin token routes' use case: the gateway reads the token bucket (listings) but
does not write it; changes go to the token responder with the caller's credential, which
authenticates it again and applies the policy there (`memhive_application.token_requests`).
A listing shows only the tokens the admin administers (`memhive_domain.delegation`)."""

from __future__ import annotations

from memhive_application.tokens import administered
from memhive_domain.policy import Action, require
from memhive_domain.principals import Principal
from memhive_domain.tokens import TokenRecord
from memhive_ports import TokenCommands, TokenDirectory


class GatewayTokens:
    def __init__(self, directory: TokenDirectory, commands: TokenCommands) -> None:
        self._directory = directory
        self.commands = commands  # create, revoke, rotate(credential, ...)

    async def list(self, principal: Principal) -> list[TokenRecord]:
        require(principal, Action.MANAGE_TOKENS)
        return administered(principal, await self._directory.list(principal.workspace_id))
