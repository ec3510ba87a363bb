"""BulletinStore on a JetStream KV bucket."""

from __future__ import annotations

import base64

from memhive.v1.bulletins_pb2 import BulletinRefreshed
from memhive_contracts.bulletin_mapping import bulletin_from_pb, bulletin_to_pb
from memhive_contracts.codec import decode, encode
from memhive_contracts.streams import BULLETINS_BUCKET, bulletin_key
from memhive_domain.bulletin import Bulletin
from memhive_domain.bulletin_audience import Audience
from memhive_domain.scopes import Scope, ScopeRef
from nats.js import JetStreamContext
from nats.js.errors import KeyNotFoundError
from nats.js.kv import KeyValue


class KvBulletinStore:
    """One key per `<workspace>.<scope token>.<audience>`, holding a BulletinRefreshed.

    A product id may hold ':' and '.', which KV keys refuse or split on, so product scopes
    are keyed by its unpadded urlsafe base64 ("p_<...>"); the global scope is "global"; a
    team or agent node by its path's unpadded urlsafe base64 ("n_<...>").
    """

    def __init__(self, kv: KeyValue) -> None:
        self._kv = kv

    @classmethod
    async def open(cls, js: JetStreamContext) -> KvBulletinStore:
        """Binds to the bucket that connection.ensure_streams declared."""
        return cls(await js.key_value(BULLETINS_BUCKET))

    async def get(self, workspace_id: str, scope: ScopeRef, audience: Audience) -> Bulletin | None:
        try:
            entry = await self._kv.get(_key(workspace_id, scope, audience))
        except KeyNotFoundError:
            return None
        return bulletin_from_pb(decode(entry.value or b"", BulletinRefreshed))

    async def put(
        self, workspace_id: str, scope: ScopeRef, audience: Audience, bulletin: Bulletin
    ) -> None:
        value = encode(bulletin_to_pb(bulletin, workspace_id, scope))
        await self._kv.put(_key(workspace_id, scope, audience), value)


def _key(workspace_id: str, scope: ScopeRef, audience: Audience) -> str:
    return bulletin_key(workspace_id, scope_token(scope), audience.value)


def scope_token(scope: ScopeRef) -> str:
    if scope.is_nested:
        return "n_" + _base64(scope.key)
    if scope.scope is Scope.GLOBAL:
        return "global"
    return "p_" + _base64(scope.product_id or "")


def _base64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
