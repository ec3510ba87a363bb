"""The dashboard and the API docs over HTTP, without a browser: sign-in cookies, CSRF,
validation, the offline /docs page and the bearer scheme in the OpenAPI document."""

from __future__ import annotations

import asyncio
import html
import re
import uuid
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import httpx
from memhive_contracts import subjects
from memhive_domain.principals import Principal, Role

from tests.integration.stack.conftest import Stack, Workspace, recall_ids, save

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def browser(stack: Stack, base_url: str = "http://memhive") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=stack.app)
    return httpx.AsyncClient(transport=transport, base_url=base_url)


@asynccontextmanager
async def signed_in(stack: Stack, token: str, base_url: str = "http://memhive"):
    """A browser-like client after the sign-in form: (client, sign-in answer, CSRF token of
    the session it started: a page read once signed in carries it)."""
    async with browser(stack, base_url) as client:
        page = await client.get("/memory/sign-in")
        form = {"csrf_token": CSRF.search(page.text).group(1), "token": token}
        answer = await client.post("/memory/sign-in", data=form)
        page = await client.get("/memory/sign-in")
        yield client, answer, CSRF.search(page.text).group(1)


async def test_pages_need_a_session_and_a_known_token(stack: Stack) -> None:
    async with browser(stack) as client:
        response = await client.get("/memory")
        assert response.status_code == 303
        assert response.headers["location"] == "/memory/sign-in"
    async with signed_in(stack, "not-a-token") as (client, response, _):
        assert response.status_code == 401
        assert "not known" in response.text
        assert "memhive_session" not in client.cookies


async def test_the_session_cookie_is_httponly_strict_and_secure_over_https(
    workspace: Workspace, stack: Stack
) -> None:
    token = await stack.token(workspace.id)
    for base_url, secure in (("http://memhive", False), ("https://memhive", True)):
        async with signed_in(stack, token, base_url) as (client, response, _):
            assert response.status_code == 303
            cookie = response.headers["set-cookie"].lower()
            assert cookie.startswith("memhive_session=")
            assert "httponly" in cookie and "samesite=strict" in cookie
            assert "path=/memory" in cookie
            assert ("secure" in cookie.split("; ")) is secure
            assert (await client.get("/memory")).status_code == 200


async def test_a_post_without_the_csrf_token_changes_nothing(
    workspace: Workspace, stack: Stack
) -> None:
    saved = await save(workspace.member, kind="fact", body="The CSRF canary lives on")
    async with signed_in(stack, await stack.token(workspace.id)) as (client, _, csrf):
        for data in ({}, {"csrf_token": "forged"}, {"csrf_token": "fälschung"}):
            refused = await client.post(f"/memory/m/{saved['id']}/forget", data=data)
            assert refused.status_code == 403
            assert "CSRF" in refused.text
        assert (await workspace.member.get(f"/v1/memories/{saved['id']}")).status_code == 200
        signed_out = await client.post("/memory/sign-out", data={})
        assert signed_out.status_code == 403
        forgotten = await client.post(f"/memory/m/{saved['id']}/forget", data={"csrf_token": csrf})
        assert forgotten.status_code == 200
        assert (await workspace.member.get(f"/v1/memories/{saved['id']}")).status_code == 404


async def test_a_csrf_pair_from_another_session_is_refused(
    workspace: Workspace, stack: Stack
) -> None:
    """Mallory signs in herself, takes her CSRF cookie and field, and has Alice's browser
    post them (a planted cookie and a forged form): the field is bound to Mallory's
    session, not Alice's, so nothing runs."""
    saved = await save(workspace.member, kind="fact", body="Alice keeps this one")
    alice = await stack.token(workspace.id, user="alice")
    async with signed_in(stack, await stack.token(workspace.id, user="mallory")) as (
        mallory,
        _,
        _,
    ):
        page = await mallory.get("/memory")
        field, nonce = CSRF.search(page.text).group(1), mallory.cookies["memhive_csrf"]
    async with browser(stack) as alices_browser:
        forget = f"/memory/m/{saved['id']}/forget"
        planted = {"Cookie": f"memhive_session={alice}; memhive_csrf={nonce}"}
        refused = await alices_browser.post(forget, data={"csrf_token": field}, headers=planted)
        assert refused.status_code == 403 and "CSRF" in refused.text
        assert (await workspace.member.get(f"/v1/memories/{saved['id']}")).status_code == 200
        # Alice's own page gives her own field, which passes with her own cookie.
        own = await alices_browser.get("/memory", headers=planted)
        own_field = CSRF.search(own.text).group(1)
        assert own_field != field
        done = await alices_browser.post(forget, data={"csrf_token": own_field}, headers=planted)
        assert done.status_code == 200, done.text
    assert (await workspace.member.get(f"/v1/memories/{saved['id']}")).status_code == 404


async def test_bad_filters_are_named_not_crashed(workspace: Workspace, stack: Stack) -> None:
    async with signed_in(stack, await stack.token(workspace.id)) as (client, _, _):
        response = await client.get("/memory", params={"created_from": "soon", "kind": "rumour"})
        assert response.status_code == 422
        assert "created_from" in response.text
        # Each problem is stated once: in the list, under a line that counts them, and
        # named as the form's field the visitor filled ("kind", not the API's "kinds").
        alert = response.text.split('<div class="alert" role="alert">', 1)[1].split("</div>")[0]
        assert "<p>These 2 fields were not accepted:</p>" in alert, alert
        assert alert.count("created_from") == 1 and alert.count("rumour") == 1, alert
        assert "<strong>kind</strong>" in alert and "kinds" not in alert, alert
        partial = await client.get(
            "/memory", params={"source": "fax"}, headers={"HX-Request": "true"}
        )
        assert partial.status_code == 422
        assert partial.text.lstrip().startswith('<section id="results"')
        assert "<p>This field was not accepted:</p>" in partial.text
        assert partial.text.count("fax") == 1, partial.text
        assert (await client.get("/memory/m/not-an-id")).status_code == 404


async def test_filters_by_source_visibility_and_day(workspace: Workspace, stack: Stack) -> None:
    note = await save(
        workspace.member, kind="fact", body="Noted by hand", source="note", visibility="private"
    )
    agent = await save(workspace.member, kind="fact", body="Said by an agent", visibility="public")
    async with signed_in(stack, await stack.token(workspace.id)) as (client, _, _):
        by_source = (await client.get("/memory", params={"source": "note"})).text
        assert note["id"] in by_source and agent["id"] not in by_source
        public = (await client.get("/memory", params={"visibility": "public"})).text
        assert agent["id"] in public and note["id"] not in public
        day = note["memory"]["created_at"][:10]
        same_day = (await client.get("/memory", params={"created_to": day})).text
        assert note["id"] in same_day
        before = (await client.get("/memory", params={"created_to": "2000-01-01"})).text
        assert note["id"] not in before


async def test_the_index_narrows_to_a_node_of_the_scope_tree(
    workspace: Workspace, stack: Stack
) -> None:
    nodes = ["product:ios/team:mobile", "product:ios/team:web", "product:ios", "global"]
    ids = {}
    for node in nodes:
        saved = await save(workspace.member, kind="fact", body=f"Notes of {node}", scope_path=node)
        ids[node] = saved["id"]
    async with signed_in(stack, await stack.token(workspace.id)) as (client, _, _):
        everything = (await client.get("/memory")).text
        offered = re.findall(r'<option value="([^"]+)">', everything)
        assert offered == ["global", *sorted(nodes[:3])]
        mobile = await client.get("/memory", params={"scope_path": "product:ios/team:mobile"})
        assert mobile.status_code == 200
        assert shown_ids(mobile.text) == [ids["product:ios/team:mobile"]]
        assert "Bulletin: product · ios · team mobile</h2>" in mobile.text
        assert 'value="product:ios/team:mobile"' in mobile.text  # the field keeps it
        # The memory's page links its node to that view.
        page = (await client.get(f"/memory/m/{ids['product:ios/team:web']}")).text
        link = re.search(r'<dt>Scope</dt><dd><a href="([^"]+)">product:ios/team:web</a>', page)
        web = await client.get(html.unescape(link.group(1)))
        assert shown_ids(web.text) == [ids["product:ios/team:web"]]
        product = await client.get("/memory", params={"scope_path": "product:ios"})
        assert shown_ids(product.text) == [ids["product:ios"]]  # the node exactly

        bad = await client.get("/memory", params={"scope_path": "team:mobile/product:ios"})
        assert bad.status_code == 422 and "scope_path" in bad.text
        disagree = await client.get(
            "/memory", params={"scope": "global", "scope_path": "product:ios"}
        )
        assert disagree.status_code == 422
    web_member = Principal(workspace.id, "wendy", Role.MEMBER, home="product:ios/team:web")
    async with signed_in(stack, await stack.infra.tokens.issue(web_member)) as (client, _, _):
        outside = await client.get("/memory", params={"scope_path": "product:ios/team:mobile"})
        assert outside.status_code == 403
        assert "outside this token&#39;s scope tree" in outside.text
        assert ids["product:ios/team:mobile"] not in outside.text
        own = await client.get("/memory", params={"scope_path": "product:ios/team:web"})
        assert shown_ids(own.text) == [ids["product:ios/team:web"]]


async def test_search_results_sort_by_importance_or_newest(
    workspace: Workspace, stack: Stack
) -> None:
    saved = [
        (await save(workspace.member, kind="fact", body=body, importance=importance))["id"]
        for body, importance in (
            ("The canary deploy runs in the Lisbon region first", 0.2),
            ("The canary deploy waits ten minutes before promotion", 0.9),
            ("The canary deploy is rolled back on a 1% error rate", 0.5),
        )
    ]
    async with signed_in(stack, await stack.token(workspace.id)) as (client, _, _):

        async def order(**params: str) -> list[str]:
            response = await client.get("/memory", params=params)
            assert response.status_code == 200, response.text
            return shown_ids(response.text)

        # The least important memory is the best match: each order differs from the others.
        search = {"q": "canary deploy in the Lisbon region"}
        relevance = await order(**search)
        assert sorted(relevance) == sorted(saved) and relevance[0] == saved[0]
        assert await order(**search, sort="importance") == [saved[1], saved[2], saved[0]]
        assert await order(**search, sort="newest") == saved[::-1]
        assert await order(sort="newest") == saved[::-1]  # the listing, newest first
        assert await order() == saved[::-1]
        page = (await client.get("/memory", params={**search, "sort": "importance"})).text
        assert '<option value="importance" selected>' in page


def shown_ids(page: str) -> list[str]:
    """The ids of the memories listed on an index page, in order."""
    return re.findall(r'class="memory-link" href="/memory/m/([^"]+)"', page)


async def test_the_index_pages_with_the_listing_cursor(stack: Stack) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    token = await stack.token(workspace)
    async with stack.client(token) as member:
        ids = [
            (await save(member, kind="event", body=f"Standup note {i}"))["id"] for i in range(27)
        ]
    async with signed_in(stack, token) as (client, _, _):
        first = await client.get("/memory")
        nxt = re.search(r'href="(/memory\?after=[^"]+)"', first.text).group(1)
        second = await client.get(html.unescape(nxt))
        seen = [i for i in ids if i in first.text], [i for i in ids if i in second.text]
        assert len(seen[0]) == 25 and len(seen[1]) == 2
        # The count is the workspace's, not the page size; the range follows the pages.
        for page, shown in ((first, "1–25"), (second, "26–27")):
            assert '<h2 id="results-heading">27 memories</h2>' in page.text
            assert f"Showing {shown}, newest first." in page.text
        assert set(seen[0]) | set(seen[1]) == set(ids)
        first_shown = min(seen[0], key=first.text.index)
        assert first_shown == ids[-1]  # newest first
        forged = await client.get("/memory", params={"after": "o:10000000000"})
        assert forged.status_code == 422 and "cursor" in forged.text


async def test_stats_for_members_and_non_members(workspace: Workspace, stack: Stack) -> None:
    await save(workspace.member, kind="goal", body="Ship the dashboard", visibility="public")
    await save(
        workspace.member, kind="goal", body="Private goal for the team", visibility="private"
    )
    for _ in range(3):
        assert await recall_ids(workspace.member, "which goals do we have?")
    subject = subjects.for_workspace(subjects.NOTE_ADDED, workspace.id)
    await stack.infra.js.publish(  # poison: dead-lettered by ingest-upstream
        subject, b"\xff not protobuf", headers={"Nats-Msg-Id": f"{workspace.id}:stats-junk"}
    )
    member_token = await stack.token(workspace.id)
    guest_token = await stack.token(workspace.id, member=False)
    async with (
        signed_in(stack, member_token) as (member, _, _),
        signed_in(stack, guest_token) as (guest, _, _),
    ):

        async def settled() -> str | None:  # recalls and dead letters arrive in the background
            page = (await member.get("/memory/stats")).text
            return page if activity(page)[-1][2] == 3 and "ingest-upstream" in page else None

        mine = await wait_for(settled, timeout_s=60)
        assert re.search(r">goal</a></th><td>2</td>", mine)
        today = datetime.now(UTC).date()
        days = [(today - timedelta(days=n)).isoformat() for n in range(6, -1, -1)]
        # day, saves, recalls, and each bar's width against the busiest number (3).
        assert activity(mine) == [(day, 0, 0, 0, 0) for day in days[:-1]] + [
            (days[-1], 2, 3, 67, 100)
        ]
        letters = (await workspace.member.get("/v1/admin/dead-letters")).json()["items"]
        assert len(letters) == 1
        assert dead_letter_rows(mine) == [
            (str(letters[0]["sequence"]), "ingest-upstream", letters[0]["reason"])
        ]
        assert "memhive.v1.NoteAdded" in letters[0]["reason"]
        assert '<span class="badge">ingest-upstream: 1</span>' in mine
        theirs = (await guest.get("/memory/stats")).text
        assert re.search(r">goal</a></th><td>1</td>", theirs)
        assert "Saves and recalls" not in theirs and "Dead letters" not in theirs


async def test_an_agent_sees_stats_without_the_dead_letters(workspace: Workspace, stack) -> None:
    """Dead letters are for people (the policy's list_dead_letters), not agents."""
    await save(workspace.member, kind="goal", body="Keep the build green", visibility="private")
    agent = await stack.infra.tokens.issue(Principal(workspace.id, "bot", Role.AGENT))
    async with signed_in(stack, agent) as (client, _, _):
        page = await client.get("/memory/stats")
    assert page.status_code == 200, page.text
    assert re.search(r">goal</a></th><td>1</td>", page.text)
    assert "Saves and recalls" in page.text and "Dead letters" not in page.text


BAR = r'<svg class="bar {}" [^>]*><rect width="(\d+)" height="1"/></svg>'
ACTIVITY_ROW = re.compile(
    r'<th scope="row">(\d{4}-\d\d-\d\d)</th>\s*'
    rf"<td>{BAR.format('saves')} (\d+)</td>\s*"
    rf"<td>{BAR.format('recalls')} (\d+)</td>"
)


def activity(page: str) -> list[tuple[str, int, int, int, int]]:
    """(day, saves, recalls, saves bar %, recalls bar %) per row of the activity table."""
    return [
        (day, int(saves), int(recalls), int(saves_bar), int(recalls_bar))
        for day, saves_bar, saves, recalls_bar, recalls in ACTIVITY_ROW.findall(page)
    ]


def dead_letter_rows(page: str) -> list[tuple[str, str, str]]:
    """(sequence, consumer, reason) per row of the dead-letter table."""
    table = page[page.index('id="dlq-heading"') :]
    rows = re.findall(
        r"<tr><td>(\d+)</td><td>([^<]*)</td><td>[^<]*</td><td>([^<]*)</td></tr>", table
    )
    return [(seq, consumer, html.unescape(reason)) for seq, consumer, reason in rows]


async def wait_for(predicate, timeout_s: float):
    deadline = asyncio.get_running_loop().time() + timeout_s
    while asyncio.get_running_loop().time() < deadline:
        if result := await predicate():
            return result
        await asyncio.sleep(0.2)
    raise AssertionError("condition not reached")


async def test_api_docs_load_nothing_from_another_host(stack: Stack) -> None:
    async with browser(stack) as client:
        page = await client.get("/docs")
        assert page.status_code == 200
        urls = re.findall(r"""(?:src|href|url)\s*[=:]\s*['"]([^'"]+)['"]""", page.text)
        assert urls, page.text
        assert all(not urlsplit(u).netloc for u in urls), urls
        for url in urls:
            assert (await client.get(url)).status_code == 200, url
        assert "/docs/assets/swagger-ui-bundle.js" in page.text
        assert "<script>" not in page.text  # start-docs.js: the CSP runs no inline script
        dashboard = await client.get("/memory/sign-in")
        for url in re.findall(r'(?:src|href)="([^"]+)"', dashboard.text):
            assert not urlsplit(url).netloc, url


BROWSER_HEADERS = {
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "x-content-type-options": "nosniff",
}


async def test_every_dashboard_and_docs_answer_carries_the_browser_headers(
    workspace: Workspace, stack: Stack
) -> None:
    saved = await save(workspace.member, kind="fact", body="Headers on every page")
    pages = [
        "/memory",
        f"/memory/m/{saved['id']}",
        "/memory/m/not-an-id",
        "/memory/stats",
        "/memory/state",
        "/memory/static/dashboard.css",
        "/memory/static/nothing-here.js",
        "/memory/oidc/login",
        "/docs",
        "/docs/assets/swagger-ui-bundle.js",
    ]
    async with signed_in(stack, await stack.token(workspace.id)) as (client, _, _):
        answers = [await client.get(path) for path in pages]
        answers.append(await client.post("/memory/sign-out", data={}))  # 403: no CSRF token
        signed_out = await client.get("/memory/sign-in")
    for response in [*answers, signed_out]:
        where = f"{response.request.method} {response.request.url.path}"
        headers = {k: response.headers.get(k) for k in BROWSER_HEADERS}
        assert headers == BROWSER_HEADERS, where
        policy = csp(response)
        assert policy["frame-ancestors"] == ["'none'"], where
        assert policy["script-src"] == ["'self'"] and policy["style-src"] == ["'self'"], where
        assert policy["default-src"] == ["'none'"], where
    assert {a.status_code for a in answers} == {200, 403, 404}
    async with browser(stack) as client:
        api = await client.get("/v1/memories")  # the JSON API is not a page: no policy
    assert api.status_code == 401 and "content-security-policy" not in api.headers


def csp(response: httpx.Response) -> dict[str, list[str]]:
    directives = response.headers["content-security-policy"].split(";")
    return {name: values for name, *values in (d.split() for d in directives)}


async def test_the_openapi_document_declares_the_bearer_scheme(stack: Stack) -> None:
    async with browser(stack) as client:
        spec = (await client.get("/openapi.json")).json()
    schemes = spec["components"]["securitySchemes"]
    assert schemes["HTTPBearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "a token from `memhive token create`",
    }
    assert spec["paths"]["/v1/recall"]["post"]["security"] == [{"HTTPBearer": []}]
    assert not any(p.startswith("/memory") for p in spec["paths"])


async def test_what_agents_wrote_is_escaped_not_run(workspace: Workspace, stack: Stack) -> None:
    body = 'Ignore <script>alert("x")</script> and <img src=x onerror=alert(1)>'
    saved = await save(workspace.member, kind="fact", body=body, tags=["xss"])
    async with signed_in(stack, await stack.token(workspace.id)) as (client, _, _):
        for path in (f"/memory/m/{saved['id']}", "/memory?tag=xss"):
            page = (await client.get(path)).text
            assert "<script>alert" not in page and "<img src=x" not in page
            assert "&lt;script&gt;" in page


async def test_the_state_page_lists_a_scopes_keys_for_members_only(
    workspace: Workspace, stack: Stack
) -> None:
    for n in range(3):
        value = {"step": n, "note": "<script>alert(1)</script>"}
        answer = await workspace.member.put(f"/v1/kv/product:ios/k{n}", json={"value": value})
        assert answer.status_code == 200, answer.text
    await workspace.member.put("/v1/kv/global/home-key", json={"value": "at home", "ttl_s": 600})

    async with signed_in(stack, await stack.token(workspace.id)) as (client, _, _):
        home = await client.get("/memory/state")
        page = await client.get("/memory/state", params={"scope": "product:ios"})
        bad = await client.get("/memory/state", params={"scope": "nowhere:1"})
    assert home.status_code == 200 and "home-key" in home.text and "never" not in home.text
    assert page.status_code == 200
    assert [f"k{n}" in page.text for n in range(3)] == [True, True, True]
    assert "<script>alert(1)" not in page.text and "&lt;script&gt;" in page.text
    assert 'href="/memory/state"' in page.text  # in the navigation
    assert bad.status_code == 422 and "scope" in bad.text

    async with signed_in(stack, await stack.token(workspace.id, member=False)) as (client, _, _):
        refused = await client.get("/memory/state")
        index = await client.get("/memory")
    assert refused.status_code == 403 and "viewer may not read state" in html.unescape(refused.text)
    assert 'href="/memory/state"' not in index.text


async def test_a_forgotten_memory_is_a_tombstone_for_members_only(
    workspace: Workspace, stack: Stack
) -> None:
    saved = await save(
        workspace.member, kind="fact", body="The old VPN gateway", visibility="public"
    )
    forgot = await workspace.member.delete(f"/v1/memories/{saved['id']}?wait=indexed")
    assert forgot.status_code == 200, forgot.text
    async with signed_in(stack, await stack.token(workspace.id, user="alice")) as (member, _, _):
        stone = await member.get(f"/memory/m/{saved['id']}")
    assert stone.status_code == 200
    assert "Forgotten fact" in stone.text and "by agent" in stone.text  # the API's user
    async with signed_in(stack, await stack.token(workspace.id, member=False)) as (guest, _, _):
        hidden = await guest.get(f"/memory/m/{saved['id']}")
    assert hidden.status_code == 404 and "The old VPN gateway" not in hidden.text
