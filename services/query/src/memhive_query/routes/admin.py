"""/v1/admin: read-only operator views for workspace members."""

from __future__ import annotations

import base64
from typing import Annotated, Any

from fastapi import APIRouter, Query
from memhive_ports.dead_letters import DeadLetter

from memhive_query.routes.dependencies import GatewayDep, PrincipalDep
from memhive_query.timestamps import utc_iso

router = APIRouter(prefix="/v1/admin", tags=["admin"])


@router.get("/dead-letters")
async def list_dead_letters(
    gw: GatewayDep,
    who: PrincipalDep,
    consumer: str | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> dict:
    """Oldest first: messages of this workspace a consumer gave up on, with the reason.
    Replay them after a fix with `memhive dead-letters replay <sequence>`."""
    letters = await gw.dead_letters(who, consumer, limit)
    return {"items": [dead_letter_json(d) for d in letters]}


def dead_letter_json(letter: DeadLetter) -> dict[str, Any]:
    return {
        "sequence": letter.sequence,
        "consumer": letter.consumer,
        "subject": letter.subject,
        "reason": letter.reason,
        "deliveries": letter.deliveries,
        "time": utc_iso(letter.time),
        "headers": dict(letter.headers),
        "payload_base64": base64.b64encode(letter.payload).decode(),
    }
