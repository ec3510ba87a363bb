"""The /memory dashboard in a real browser against the gateway on a real socket: sign in,
search, filter, open a memory (revisions, recall statistics, trust and flags), pin and
unpin it, follow an edge, forget with confirmation, gone from search; a non-member sees
public memories only, no forget button, and cannot forget by posting the form."""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime

import httpx
import pytest

from tests.integration.stack.browser import (
    CSP_VIOLATION,
    PHONE,
    CspViolations,
    chromium,
    page_width_overflow,
    require_chromium,
    screenshot,
)
from tests.integration.stack.conftest import Stack, save

pytestmark = pytest.mark.timeout(180)

OLD = "The payments API is served from the Frankfurt region"
NEW_DRAFT = "The payments API moves to the Dublin region in June"  # revision 1 of NEW
NEW = "The payments API moved to the Dublin region in May"
FLAG_REASON = "the region moved to Dublin"
PRIVATE = "Dublin datacenter door code rotates every Monday"


@pytest.fixture(autouse=True)
def _chromium() -> None:
    require_chromium()


async def seed(stack: Stack) -> tuple[str, dict[str, str]]:
    """OLD (flagged outdated) is updated by NEW; NEW has two revisions (its body corrected)
    and two recalls; PRIVATE is for members only."""
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    ids: dict[str, str] = {}
    async with stack.client(await stack.token(workspace)) as member:
        ids["old"] = (
            await save(
                member,
                kind="fact",
                body=OLD,
                visibility="public",
                tags=["infra"],
                source="note",
                source_ref="wiki/regions",
            )
        )["id"]
        ids["new"] = (
            await save(
                member,
                kind="decision",
                body=NEW_DRAFT,
                visibility="public",
                product_id="payments",
                tags=["infra"],
            )
        )["id"]
        corrected = await member.patch(
            f"/v1/memories/{ids['new']}?wait=indexed", json={"body": NEW, "force": True}
        )
        assert corrected.status_code == 200, corrected.text
        assert corrected.json()["memory"]["revision"] == 2
        ids["private"] = (
            await save(member, kind="fact", body=PRIVATE, tags=["infra"], visibility="private")
        )["id"]
        response = await member.post(
            "/v1/edges",
            json={
                "src_id": ids["new"],
                "dst_id": ids["old"],
                "kind": "updates",
                "rationale": "the region moved",
            },
        )
        assert response.status_code in (200, 201), response.text
        flagged = await member.post(
            f"/v1/memories/{ids['old']}/flags?wait=indexed",
            json={"kind": "outdated", "reason": FLAG_REASON},
        )
        assert flagged.status_code == 201, flagged.text
        for _ in range(2):  # recall statistics, folded in by ingest
            hits = (await member.post("/v1/recall", json={"query": "payments region"})).json()
            assert ids["new"] in [hit["id"] for hit in hits["results"]]
        await recalled_twice(member, ids["new"])
    return workspace, ids


async def recalled_twice(member: httpx.AsyncClient, memory_id: str) -> dict:
    for _ in range(200):
        memory = (await member.get(f"/v1/memories/{memory_id}")).json()
        if memory["access_count"] >= 2:
            break
        await asyncio.sleep(0.05)
    assert memory["access_count"] == 2, memory
    return memory


async def memory_json(stack: Stack, workspace: str, memory_id: str) -> dict:
    async with stack.client(await stack.token(workspace)) as member:
        response = await member.get(f"/v1/memories/{memory_id}")
    assert response.status_code == 200, response.text
    return response.json()


def minute(iso: str) -> str:
    """A timestamp of the API as the dashboard prints it."""
    return datetime.fromisoformat(iso).strftime("%Y-%m-%d %H:%M UTC")


async def definitions(page, heading: str) -> dict[str, str]:
    """The <dt>/<dd> pairs of the section headed `heading` on a memory's page."""
    section = page.locator("section", has=page.get_by_role("heading", name=heading))
    return await section.locator("dl").first.evaluate(
        """dl => Object.fromEntries([...dl.querySelectorAll('dt')].map(
            dt => [dt.textContent.trim(), dt.nextElementSibling.textContent.trim()]))"""
    )


async def sign_in(page, gateway_url: str, token: str) -> None:
    await page.goto(f"{gateway_url}/memory")
    assert page.url.endswith("/memory/sign-in")
    await screenshot(page, "dashboard-sign-in")
    await page.get_by_label("Token").fill(token)
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url(f"{gateway_url}/memory")


async def test_member_searches_filters_follows_an_edge_and_forgets(
    stack: Stack, gateway_url: str
) -> None:
    workspace, ids = await seed(stack)
    token = await stack.token(workspace, user="alice")
    async with chromium() as browser:
        page = await browser.new_page()
        await sign_in(page, gateway_url, token)
        cookies = {c["name"]: c for c in await browser.cookies()}
        assert cookies["memhive_session"]["httpOnly"]
        assert cookies["memhive_session"]["sameSite"] == "Strict"
        results = page.locator("#results")
        for body in (OLD, NEW, PRIVATE):
            await results.get_by_text(body).wait_for()
        # An honest count: the selection's, not the page size.
        assert await page.locator("#results-heading").inner_text() == "3 memories"
        assert await results.locator(".count").inner_text() == "Showing 1–3, newest first."
        # OLD is superseded by NEW (an updates edge), flagged outdated, so stale too.
        assert await badges(results, OLD) == [
            "superseded: see the newer",
            "flagged outdated",
            "stale",
        ]
        assert await badges(results, NEW) == []
        successor = item(results, OLD).get_by_role("link", name="superseded: see the newer")
        assert await successor.get_attribute("href") == f"/memory/m/{ids['new']}"
        await screenshot(page, "dashboard-index")

        # Search as you type (no Enter), each match with its confidence; then a filter.
        await page.get_by_label("Search (hybrid: meaning and words)").fill("payments region")
        await page.wait_for_url(lambda url: "q=payments" in url)
        await results.get_by_text(NEW).wait_for()
        assert (await badges(results, NEW))[0].startswith("confidence 0.")
        await page.get_by_label("Kind").select_option("decision")
        await page.get_by_role("button", name="Search").click()
        await page.wait_for_url(lambda url: "kind=decision" in url)
        assert await results.get_by_text(OLD).count() == 0
        await results.get_by_text(NEW).wait_for()

        # A node of the scope tree, picked in the form, opens with that node's bulletin.
        await page.goto(f"{gateway_url}/memory")
        node = page.get_by_label("Scope node")
        options = page.locator("#scope-nodes option")
        assert await options.evaluate_all("os => os.map(o => o.value)") == [
            "global",
            "product:payments",
        ]
        await node.fill("product:payments")
        await page.get_by_role("button", name="Search").click()
        await page.wait_for_url(lambda url: "scope_path=product%3Apayments" in url)
        await page.get_by_role("heading", name="Bulletin: product · payments").wait_for()
        listed = results.locator("ol.memories")
        await listed.get_by_text(NEW).wait_for()  # (the bulletin above quotes it too)
        assert await listed.get_by_text(OLD).count() == 0
        # The bulletin is HTML (headings, a list), its memory ids links to their pages.
        bulletin = page.locator(".bulletin-text")
        await bulletin.get_by_role("heading", name="Decisions (1 of 1 shown)").wait_for()
        assert await bulletin.locator("li").count() == 1
        id_link = bulletin.get_by_role("link", name=ids["new"])
        assert await id_link.get_attribute("href") == f"/memory/m/{ids['new']}"
        await screenshot(page, "dashboard-scope")
        await id_link.click()
        await page.wait_for_url(f"**/memory/m/{ids['new']}")

        # Open the memory, follow its `updates` edge to the one it superseded.
        await page.goto(f"{gateway_url}/memory?q=payments+region")
        await results.get_by_role("link", name=NEW).click()
        await page.wait_for_url(f"**/memory/m/{ids['new']}")
        await page.get_by_role("heading", name="Supersession chain").wait_for()
        main = page.locator("main")
        assert await main.get_by_text("the region moved").count() == 1
        await screenshot(page, "dashboard-memory")

        # Recall statistics: the two recalls of the seed (browsing does not count).
        new = await memory_json(stack, workspace, ids["new"])
        assert new["access_count"] == 2
        recall = await definitions(page, "Provenance and recall")
        assert recall["Recalled"] == "2 times"
        assert recall["Last recalled"] == minute(new["last_accessed_at"])
        # Revision history: the save, then the corrected body, oldest first.
        assert await revision_rows(page) == [
            ["1", "saved", NEW_DRAFT],
            ["2", "saved", NEW],
        ]
        trust = await definitions(page, "Trust")
        assert trust["Trust"].startswith(f"{new['trust']:.2f} ")
        assert trust["Corrected"] == "1 time" and trust["Confirmed"] == "0 times"
        assert await main.get_by_role("heading", name="Flags (0)").count() == 1

        # Pin, then unpin: each is a revision of its own.
        await page.get_by_role("button", name="Pin", exact=True).click()
        await page.get_by_role("button", name="Unpin").wait_for()
        metadata = await definitions(page, "Metadata")
        assert metadata["Importance"].endswith("· pinned")
        assert (await memory_json(stack, workspace, ids["new"]))["pinned"] is True
        await page.get_by_role("button", name="Unpin").click()
        await page.get_by_role("button", name="Pin", exact=True).wait_for()
        metadata = await definitions(page, "Metadata")
        assert "pinned" not in metadata["Importance"]
        assert (await memory_json(stack, workspace, ids["new"]))["pinned"] is False
        assert [row[0] for row in await revision_rows(page)] == ["1", "2", "3", "4"]

        await page.locator("ul.edges").get_by_role("link", name=OLD).click()
        await page.wait_for_url(f"**/memory/m/{ids['old']}")
        await main.get_by_text("wiki/regions").wait_for()  # provenance
        await main.get_by_role("link", name=NEW).first.wait_for()  # newer in the chain
        # An outdated flag: listed with its reason, trust down, fully stale.
        old = await memory_json(stack, workspace, ids["old"])
        trust = await definitions(page, "Trust")
        assert trust["Trust"].startswith(f"{old['trust']:.2f} ") and old["trust"] < 0.5
        assert trust["Staleness"].startswith("1.00 ")
        await main.get_by_role("heading", name="Flags (1)").wait_for()
        flag = main.locator("ul.flags li")
        assert await flag.count() == 1
        text = await flag.inner_text()
        assert text.startswith(f"outdated {FLAG_REASON}") and "by agent" in text

        # Forget: a confirmation step, then gone from search.
        await page.get_by_role("link", name="Forget…").click()
        await page.get_by_role("heading", name="Forget this memory?").wait_for()
        await screenshot(page, "dashboard-forget")
        await page.get_by_role("button", name="Forget it").click()
        await page.get_by_role("status").get_by_text("is forgotten").wait_for()
        await page.goto(f"{gateway_url}/memory?q=Frankfurt+region&weaker=1")
        await page.locator("#results-heading").wait_for()
        assert await results.get_by_text(OLD).count() == 0
        # Its page is now a tombstone: who forgot it, when, and the history kept for audit.
        await page.goto(f"{gateway_url}/memory/m/{ids['old']}")
        await page.get_by_role("heading", name="Forgotten fact").wait_for()
        status = await page.get_by_role("status").inner_text()
        assert "by alice" in status and "Forgotten on " in status
        history = await revision_rows(page)
        assert history[0] == ["1", "saved", OLD] and history[-1][1:] == ["forgotten", OLD]
        assert await page.get_by_role("button", name="Forget it").count() == 0
        await screenshot(page, "dashboard-tombstone")

        await page.goto(f"{gateway_url}/memory/stats")
        await page.get_by_role("heading", name="Memories per kind and scope").wait_for()
        await screenshot(page, "dashboard-stats")

        # Sign out ends the session.
        await page.get_by_role("button", name="Sign out").click()
        await page.wait_for_url("**/memory/sign-in")
        await page.goto(f"{gateway_url}/memory")
        assert page.url.endswith("/memory/sign-in")


async def test_non_member_sees_public_memories_only_and_no_forget_button(
    stack: Stack, gateway_url: str
) -> None:
    workspace, ids = await seed(stack)
    token = await stack.token(workspace, member=False, user="guest")
    async with chromium() as browser:
        page = await browser.new_page()
        await sign_in(page, gateway_url, token)
        results = page.locator("#results")
        await results.get_by_text(NEW).wait_for()
        await results.get_by_text(OLD).wait_for()
        assert await results.get_by_text(PRIVATE).count() == 0

        # Keyboard: the first Tab reaches the skip link, shown with a focus outline.
        await page.keyboard.press("Tab")
        focused = page.locator(":focus")
        assert await focused.inner_text() == "Skip to content"
        outline = await focused.evaluate("e => getComputedStyle(e).outlineStyle")
        assert outline == "solid"
        await page.keyboard.press("Enter")
        assert await page.evaluate("document.activeElement.id") == "main"
        await page.goto(f"{gateway_url}/memory?q=door+code&weaker=1")
        await page.locator("#results-heading").wait_for()
        assert await results.get_by_text(PRIVATE).count() == 0
        await page.goto(f"{gateway_url}/memory/m/{ids['private']}")
        await page.get_by_role("heading", name="Not found").wait_for()
        await page.goto(f"{gateway_url}/memory/m/{ids['new']}")
        await page.get_by_role("heading", name="Supersession chain").wait_for()
        assert await page.get_by_role("link", name="Forget…").count() == 0
        assert await page.get_by_role("button", name="Pin", exact=True).count() == 0
        assert await page.get_by_role("button", name="Forget it").count() == 0
        await page.goto(f"{gateway_url}/memory/m/{ids['new']}/forget")
        await page.get_by_role("heading", name="Cannot do that").wait_for()

        # The forget form posted anyway, with a valid CSRF token: refused, nothing forgotten.
        csrf = await page.locator("input[name=csrf_token]").first.get_attribute("value")
        refused = await page.request.post(
            f"{gateway_url}/memory/m/{ids['new']}/forget", form={"csrf_token": csrf}
        )
        assert refused.status == 403
        assert "only workspace members" in await refused.text()
        pinned = await page.request.post(
            f"{gateway_url}/memory/m/{ids['new']}/pin",
            form={"csrf_token": csrf, "pinned": "true"},
        )
        assert pinned.status == 403
        still = await memory_json(stack, workspace, ids["new"])
        assert still["body"] == NEW and still["pinned"] is False


async def test_a_form_post_without_the_csrf_token_is_refused(
    stack: Stack, gateway_url: str
) -> None:
    workspace, ids = await seed(stack)
    token = await stack.token(workspace, user="alice")
    async with chromium() as browser:
        page = await browser.new_page()
        await sign_in(page, gateway_url, token)
        # The browser sends its cookies (session and CSRF) but the form lacks the token.
        forged = await page.request.post(
            f"{gateway_url}/memory/m/{ids['private']}/forget", form={"note": "x"}
        )
        assert forged.status == 403
        assert "CSRF" in await forged.text()
        await page.goto(f"{gateway_url}/memory/m/{ids['private']}")
        await page.locator("blockquote").get_by_text(PRIVATE).wait_for()  # still there


def item(results, body: str):
    """The listed memory whose link reads `body`."""
    return results.locator("ol.memories > li").filter(has_text=body)


async def badges(results, body: str) -> list[str]:
    """The badges of the listed memory whose link reads `body`, in order."""
    return [t.strip() for t in await item(results, body).locator(".badges > *").all_inner_texts()]


async def revision_rows(page) -> list[list[str]]:
    """Revision, change and body of each row of the revision history."""
    rows = page.locator("section", has=page.get_by_role("heading", name="Revision history"))
    cells = await rows.locator("tbody tr").evaluate_all(
        "trs => trs.map(tr => [...tr.cells].map(td => td.textContent.trim()))"
    )
    return [[row[0], row[2], row[3]] for row in cells]


async def test_a_member_reads_a_scopes_state_and_pages_through_it(
    stack: Stack, gateway_url: str
) -> None:
    workspace = f"ws-{uuid.uuid4().hex[:12]}"
    async with stack.client(await stack.token(workspace)) as member:
        for n in range(52):  # past one page of 50
            body = {"value": {"release": "2.1", "step": n}}
            answer = await member.put(f"/v1/kv/product:payments/step-{n:02d}", json=body)
            assert answer.status_code == 200, answer.text
    async with chromium() as browser:
        page = await browser.new_page()
        await sign_in(page, gateway_url, await stack.token(workspace, user="alice"))
        await page.get_by_role("link", name="State").click()
        await page.get_by_role("heading", name="Keys at global").wait_for()
        await page.get_by_label("Scope (a node of the scope tree)").fill("product:payments")
        await page.get_by_role("button", name="Show").click()
        await page.get_by_role("heading", name="Keys at product:payments").wait_for()
        # A key written once shows the bucket's revision, explained on the page.
        help_text = await page.locator("#revision-help").inner_text()
        assert "not a count of this key's writes" in help_text
        table = page.locator("table.state")
        await table.get_by_text("step-00").wait_for()
        assert await table.get_by_text('"step":7').count() == 1
        assert await table.locator("tbody tr").count() == 50
        await screenshot(page, "dashboard-state")
        await page.get_by_role("link", name="Next page").click()
        await table.get_by_text("step-51").wait_for()
        assert await table.locator("tbody tr").count() == 2


HTTP_METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


async def test_api_docs_list_every_operation_offline(stack: Stack, gateway_url: str) -> None:
    """Swagger UI reads the OpenAPI 3.1 document (4.x said "no valid version field") and
    lists every operation, with nothing fetched from another host and no CSP violation."""
    async with stack.client(None) as anonymous:
        spec = (await anonymous.get("/openapi.json")).json()
    assert spec["openapi"].startswith("3.1")
    operations = sorted(
        (method.upper(), path)
        for path, item in spec["paths"].items()
        for method in item
        if method in HTTP_METHODS
    )
    async with chromium() as browser:
        page = await browser.new_page()
        elsewhere: list[str] = []
        page.on(
            "request",
            lambda r: None if r.url.startswith((gateway_url, "data:")) else elsewhere.append(r.url),
        )
        await page.goto(f"{gateway_url}/docs")
        summaries = page.locator(".opblock-summary")
        await summaries.first.wait_for()
        shown = await summaries.evaluate_all(
            """ss => ss.map(s => [
                s.querySelector('.opblock-summary-method').textContent.trim(),
                s.querySelector('.opblock-summary-path').dataset.path])"""
        )
        assert sorted(map(tuple, shown)) == operations
        assert await page.get_by_text("Unable to render this definition").count() == 0
        await page.get_by_role("button", name="Authorize").wait_for()
        assert elsewhere == []
        await screenshot(page, "api-docs")


async def test_a_page_that_breaks_its_csp_fails_the_test(gateway_url: str) -> None:
    """The guard every browser test runs under: a style attribute the CSP refuses."""
    with pytest.raises(CspViolations, match="style-src"):
        async with chromium() as browser:
            page = await browser.new_page()
            await page.goto(f"{gateway_url}/memory/sign-in")
            async with page.expect_console_message(lambda m: CSP_VIOLATION in m.text):
                await page.evaluate(
                    "document.body.insertAdjacentHTML('beforeend', '<p style=\"color: red\">x</p>')"
                )


async def test_gibberish_matches_nothing_and_the_weaker_matches_are_one_click_away(
    stack: Stack, gateway_url: str
) -> None:
    """The same confidence floor as an agent gets over MCP: an unrelated query answers
    "No memory matches", and an auditor can still see what was left out, with confidence."""
    workspace, _ = await seed(stack)
    async with chromium() as browser:
        page = await browser.new_page()
        await sign_in(page, gateway_url, await stack.token(workspace, user="alice"))
        results = page.locator("#results")
        await page.get_by_label("Search (hybrid: meaning and words)").fill("qzxv blorft wumpus")
        await page.wait_for_url(lambda url: "q=qzxv" in url)
        heading = page.locator("#results-heading")
        await page.get_by_role("heading", name="No memory matches").wait_for()
        assert await results.locator("ol.memories > li").count() == 0
        await page.get_by_role("link", name="Show weaker matches").click()
        await page.wait_for_url(lambda url: "weaker=1" in url)
        assert (await heading.inner_text()).endswith("matches")
        confidences = await results.locator(".badge.confidence").all_inner_texts()
        assert len(confidences) == await results.locator("ol.memories > li").count() > 0
        assert all(float(c.split()[1]) < 0.01 for c in confidences), confidences
        await page.get_by_role("link", name="Only confident matches").click()
        await page.get_by_role("heading", name="No memory matches").wait_for()


async def test_at_390_px_the_filters_fold_away_and_no_page_scrolls_sideways(
    stack: Stack, gateway_url: str
) -> None:
    workspace, ids = await seed(stack)
    async with stack.client(await stack.token(workspace)) as member:
        gone = await save(member, kind="fact", body="The Lisbon office lease ends in March 2027")
        forgot = await member.delete(f"/v1/memories/{gone['id']}?wait=indexed")
        assert forgot.status_code == 200, forgot.text
        value = {"release": "2.1", "checklist": ["x" * 80, "migrate-the-payments-ledger" * 3]}
        put = await member.put("/v1/kv/global/release-checklist", json={"value": value})
        assert put.status_code == 200, put.text
    pages = {
        "sign-in": "/memory/sign-in",
        "index": "/memory",
        "search": "/memory?q=payments+region&weaker=1",
        "scope": "/memory?scope_path=product%3Apayments",
        "memory": f"/memory/m/{ids['new']}",
        "forget": f"/memory/m/{ids['new']}/forget",
        "tombstone": f"/memory/m/{gone['id']}",
        "not-found": f"/memory/m/{ids['new'][:-4]}0000",
        "stats": "/memory/stats",
        "state": "/memory/state",
    }
    async with chromium(viewport=PHONE) as browser:
        page = await browser.new_page()
        await sign_in(page, gateway_url, await stack.token(workspace, user="alice"))
        # The filters are folded under the search box: the first memory is on the first screen.
        panel = page.locator("details.filters-panel")
        assert await panel.evaluate("d => d.open") is False
        assert await page.get_by_label("Kind").is_hidden()
        first = await page.locator("ol.memories > li").first.bounding_box()
        assert first["y"] + first["height"] < PHONE["height"]
        await screenshot(page, "dashboard-phone-index")
        await page.get_by_text("Filters", exact=True).click()
        await page.get_by_label("Kind").wait_for()
        for name, path in pages.items():
            await page.goto(f"{gateway_url}{path}")
            await page.locator("main h1").first.wait_for()
            assert await page_width_overflow(page) == 0, name
        await screenshot(page, "dashboard-phone-state")


async def test_markup_typed_into_the_filters_is_shown_as_text_never_run(
    stack: Stack, gateway_url: str
) -> None:
    """What `test_dashboard_fuzzing` checks in the HTML, as a person sees it: markup in the
    search box stays the characters typed, and a filter refused names its field on the page
    with the value as text; no script runs, no element is made from it."""
    workspace, _ = await seed(stack)
    markup = '<img src=x onerror="document.title=`pwned`">'
    async with chromium() as browser:
        page = await browser.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda dialog: dialogs.append(dialog.message))
        await sign_in(page, gateway_url, await stack.token(workspace, user="alice"))
        search = page.get_by_label("Search (hybrid: meaning and words)")
        await search.fill(markup)
        await page.wait_for_url(lambda url: "q=%3Cimg" in url)
        await page.locator("#results-heading").wait_for()
        assert await search.input_value() == markup
        await page.goto(f"{gateway_url}/memory?kind=" + markup.replace('"', "%22"))
        problem = page.locator("li", has_text="kind")
        await problem.first.wait_for()
        shown = await page.locator("main").inner_text()
        await screenshot(page, "dashboard-markup-in-a-filter")
        made = await page.locator("img[src='x']").count()
        title = await page.title()
    assert markup in shown, shown  # the value, as text
    # ...stated once, under the form's name for the field ("kind", not the API's "kinds").
    assert shown.count(markup) == 1 and "kinds" not in shown, shown
    assert "This field was not accepted:\n" in shown and "kind: unknown value" in shown, shown
    assert made == 0 and "pwned" not in title and dialogs == []
