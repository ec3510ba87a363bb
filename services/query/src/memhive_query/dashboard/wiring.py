"""The dashboard's use cases, built from the gateway's own (no HTTP to itself)."""

from __future__ import annotations

from dataclasses import dataclass

from memhive_adapters.nats.event_counts import JetStreamEventCounts
from memhive_application.authentication import Authenticator

from memhive_query.dashboard.browse import BrowseMemories
from memhive_query.dashboard.login_cookie import LoginCookies
from memhive_query.dashboard.memory_page import ViewMemory
from memhive_query.dashboard.oidc_flow import OidcSignIn
from memhive_query.dashboard.standing import Standing
from memhive_query.dashboard.stats import MemoryStats
from memhive_query.gateway import Gateway
from memhive_query.use_cases.audit import AuditedKeyValues
from memhive_query.use_cases.bulletins import ReadBulletin
from memhive_query.use_cases.memories import ForgetMemory, MemoryReader
from memhive_query.use_cases.update import UpdateMemory


@dataclass(frozen=True, slots=True)
class Dashboard:
    auth: Authenticator
    reader: MemoryReader
    browse: BrowseMemories
    view: ViewMemory
    forget: ForgetMemory
    update: UpdateMemory
    bulletin: ReadBulletin
    stats: MemoryStats
    kv: AuditedKeyValues  # read only here: the State page
    oidc: OidcSignIn | None  # None: OIDC sign-in is not configured (tokens only)
    login_cookies: LoginCookies


async def build_dashboard(gw: Gateway) -> Dashboard:
    _, lexical = await gw.infra.lanes()
    oidc = gw.infra.settings.oidc
    sign_in = None
    if gw.identity_provider is not None and gw.identity is not None:
        sign_in = OidcSignIn(gw.identity_provider, gw.identity, oidc)
    return Dashboard(
        auth=gw.auth,
        reader=gw.reader,
        browse=BrowseMemories(
            gw.reader, gw.recall, lexical, Standing(gw.infra.store, gw.infra.clock), gw.infra.clock
        ),
        view=ViewMemory(gw.reader, gw.edges, gw.revisions, gw.infra.clock),
        forget=gw.forget,
        update=gw.update,
        bulletin=gw.bulletin,
        stats=MemoryStats(
            lexical, JetStreamEventCounts(gw.infra.js), gw.dead_letters, gw.infra.clock
        ),
        kv=gw.kv,
        oidc=sign_in,
        login_cookies=LoginCookies(oidc),
    )
