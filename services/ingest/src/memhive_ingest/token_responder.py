"""Answers token changes (memhive.admin.tokens.<op>) for the gateway: ingest is the one
service allowed to write the token bucket. One replica answers each request (a queue
group); every request is authenticated here from the credential it carries."""

from __future__ import annotations

import logging

from memhive.v1 import token_admin_pb2 as pb
from memhive_contracts import subjects
from memhive_contracts.codec import UndecodableMessage, decode, encode
from memhive_contracts.token_mapping import MALFORMED, done, refusal
from memhive_domain.errors import DomainError
from memhive_ports import TokenCommands, TokenRequest
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

log = logging.getLogger(__name__)


class TokenResponder:
    def __init__(self, nats: NatsClient, tokens: TokenCommands) -> None:
        self._nats, self._tokens = nats, tokens
        self._sub: Subscription | None = None
        self._ops = {
            subjects.CREATE_TOKEN: self._create,
            subjects.REVOKE_TOKEN: self._revoke,
            subjects.ROTATE_TOKEN: self._rotate,
        }

    async def start(self) -> None:
        self._sub = await self._nats.subscribe(
            f"{subjects.TOKEN_REQUESTS}.*", queue=subjects.TOKEN_RESPONDERS, cb=self._on_request
        )

    async def stop(self) -> None:
        if self._sub is not None:
            await self._sub.unsubscribe()

    async def _on_request(self, msg: Msg) -> None:
        if not msg.reply:
            return  # a request nobody waits for changes nothing
        op = self._ops.get(msg.subject)
        try:
            if op is None:
                raise UndecodableMessage(f"no token operation {msg.subject!r}")
            answer = await op(msg.data)
        except UndecodableMessage as exc:
            answer = pb.TokenAnswer(error=MALFORMED, reason=str(exc))
        except DomainError as exc:
            answer = refusal(exc)
        except Exception as exc:
            log.exception("token request on %s failed", msg.subject)
            answer = refusal(exc)
        await msg.respond(encode(answer))

    async def _create(self, data: bytes) -> pb.TokenAnswer:
        request = decode(data, pb.CreateToken)
        record, secret = await self._tokens.create(
            request.credential,
            TokenRequest(
                user_id=request.user_id,
                role=request.role,
                name=request.name,
                home=request.home,
                acting_for=_optional(request, "acting_for"),
                expires_in=_optional(request, "expires_in"),
                expires_at=_optional(request, "expires_at"),
            ),
        )
        return done(record, secret)

    async def _revoke(self, data: bytes) -> pb.TokenAnswer:
        request = decode(data, pb.RevokeToken)
        return done(await self._tokens.revoke(request.credential, request.token_id))

    async def _rotate(self, data: bytes) -> pb.TokenAnswer:
        request = decode(data, pb.RotateToken)
        grace = _optional(request, "grace")
        return done(*await self._tokens.rotate(request.credential, request.token_id, grace))


def _optional(message, field: str) -> str | None:
    return getattr(message, field) if message.HasField(field) else None
