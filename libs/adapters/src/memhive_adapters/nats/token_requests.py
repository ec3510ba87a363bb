"""TokenCommands as NATS requests to the token responder (the gateway's side).

The gateway may publish these requests but not write the token bucket; the caller's
credential goes along as received, and the responder's refusals come back as the same
domain errors (so the same HTTP answers). No answer in time is TokenServiceUnavailable; a
stalled bus is BusUnavailable, and below the data dir's low-space watermark (`space`) no
change is asked for (InsufficientStorage).
"""

from __future__ import annotations

from google.protobuf.message import Message
from memhive.v1 import token_admin_pb2 as pb
from memhive_contracts import subjects
from memhive_contracts.codec import UndecodableMessage, decode, encode
from memhive_contracts.token_mapping import TokenRequestFailed, raise_refusal, record_from_pb
from memhive_domain.tokens import TokenRecord
from memhive_ports import TokenRequest, TokenServiceUnavailable
from nats.aio.client import Client
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeout

from memhive_adapters.free_space import FreeSpace
from memhive_adapters.nats.unavailable import BusStalled


class BusTokenCommands:
    def __init__(
        self, nats: Client, timeout_s: float = 5.0, space: FreeSpace | None = None
    ) -> None:
        self._nats, self._timeout, self._space = nats, timeout_s, space

    async def create(self, credential: str, request: TokenRequest) -> tuple[TokenRecord, str]:
        message = pb.CreateToken(
            credential=credential,
            user_id=request.user_id,
            role=request.role,
            name=request.name,
            home=request.home,
        )
        for field in ("acting_for", "expires_in", "expires_at"):
            if getattr(request, field) is not None:
                setattr(message, field, getattr(request, field))
        answer = await self._ask(subjects.CREATE_TOKEN, message)
        return record_from_pb(answer.token), answer.secret

    async def revoke(self, credential: str, token_id: str) -> TokenRecord:
        message = pb.RevokeToken(credential=credential, token_id=token_id)
        return record_from_pb((await self._ask(subjects.REVOKE_TOKEN, message)).token)

    async def rotate(
        self, credential: str, token_id: str, grace: str | None = None
    ) -> tuple[TokenRecord, str]:
        message = pb.RotateToken(credential=credential, token_id=token_id)
        if grace is not None:
            message.grace = grace
        answer = await self._ask(subjects.ROTATE_TOKEN, message)
        return record_from_pb(answer.token), answer.secret

    async def _ask(self, subject: str, message: Message) -> pb.TokenAnswer:
        if self._space is not None:
            self._space.require("the token change was not asked for")
        try:
            reply = await self._nats.request(subject, encode(message), timeout=self._timeout)
        except BusStalled:
            raise  # the bus, not the token service, does not answer
        except (NatsTimeout, NoRespondersError) as exc:
            raise TokenServiceUnavailable(
                f"no token service answered within {self._timeout:g} s (the ingest service "
                "answers token changes: is it running?)"
            ) from exc
        try:
            answer = decode(reply.data, pb.TokenAnswer)
            raise_refusal(answer)
        except (UndecodableMessage, TokenRequestFailed) as exc:
            raise TokenServiceUnavailable(f"the token service failed: {exc}") from exc
        return answer
