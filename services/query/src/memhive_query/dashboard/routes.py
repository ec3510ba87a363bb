"""/memory: the dashboard's pages. Thin like the REST routes: decode, call a use case, render.

Without JavaScript every page and form works as plain HTML; htmx (shipped in static/)
swaps only the results on search and paging, and keeps the address bar in step.
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from memhive_application.authentication import Unauthenticated
from memhive_domain.changes import MemoryChanges
from memhive_domain.errors import DomainError, FieldProblem, InvalidInput, NotAllowed, NotFound
from memhive_domain.listing import MAX_CURSOR_CHARS
from memhive_domain.policy import Action, allows, require
from memhive_domain.principals import Principal
from memhive_domain.recall import SelectionRequest

from memhive_query.dashboard.browse import BrowseRequest, RefinementFields, Sort
from memhive_query.dashboard.memory_page import Tombstone
from memhive_query.dashboard.pages import render as _render
from memhive_query.dashboard.session import (
    CsrfRefused,
    check_csrf,
    end_session,
    signed_in,
    start_session,
)
from memhive_query.dashboard.wiring import Dashboard
from memhive_query.use_cases.bulletins import ScopeBulletin

router = APIRouter(prefix="/memory", include_in_schema=False)
STATE_PAGE = 50


async def _dashboard(request: Request) -> Dashboard:
    # Async although nothing is awaited: FastAPI runs a plain `def` dependency in a worker
    # thread, a hop on every request.
    return request.app.state.dashboard


class SignInRequired(Exception):
    """A page asked for without a live session: the answer is the sign-in page."""


async def _visitor(request: Request) -> Principal:
    """The signed-in principal of a page; without one the page is not run at all."""
    who = await signed_in(request, request.app.state.dashboard.auth)
    if who is None:
        raise SignInRequired()
    return who


DashboardDep = Annotated[Dashboard, Depends(_dashboard)]
VisitorDep = Annotated[Principal, Depends(_visitor)]


async def to_sign_in(_: Request, __: Exception) -> RedirectResponse:
    """The handler of SignInRequired (installed with the router by mount_dashboard)."""
    return RedirectResponse("/memory/sign-in", status_code=303)


def _oidc_name(request: Request) -> str | None:
    """The provider's name for "Sign in with ...", when OIDC sign-in is configured."""
    oidc = request.app.state.dashboard.oidc
    return oidc.display_name if oidc else None


def _message(exc: Exception) -> str:
    """What a page says above the list of problems: each problem is listed once, below it
    (`str(InvalidInput)` joins them, which the list would say a second time)."""
    if isinstance(exc, InvalidInput) and exc.problems:
        fields = len({p.field for p in exc.problems})
        return (
            "This field was not accepted:"
            if fields == 1
            else f"These {fields} fields were not accepted:"
        )
    return str(exc)


def _error(request: Request, who: Principal | None, exc: Exception) -> HTMLResponse:
    status = {NotFound: 404, NotAllowed: 403, InvalidInput: 422, CsrfRefused: 403}.get(
        type(exc), 400
    )
    problems = exc.problems if isinstance(exc, InvalidInput) else []
    message = (
        "The form was not sent from this dashboard (missing or wrong CSRF token). "
        "Reload the page and try again."
        if isinstance(exc, CsrfRefused)
        else _message(exc)
    )
    heading = "Not found" if status == 404 else "Cannot do that"
    return _render(
        request, "error.html", status, who=who, heading=heading, message=message, problems=problems
    )


@router.get("/sign-in")
async def sign_in_page(request: Request) -> Response:
    return _render(request, "sign_in.html", who=None, failed=False, oidc=_oidc_name(request))


@router.post("/sign-in")
async def sign_in(request: Request, token: Annotated[str, Form()] = "") -> Response:
    try:
        await check_csrf(request)
    except CsrfRefused as exc:
        return _error(request, None, exc)
    try:
        await request.app.state.dashboard.auth.principal_for(f"Bearer {token.strip()}")
    except Unauthenticated:
        return _render(
            request, "sign_in.html", 401, who=None, failed=True, oidc=_oidc_name(request)
        )
    response = RedirectResponse("/memory", status_code=303)
    start_session(request, response, token.strip())
    return response


@router.post("/sign-out")
async def sign_out(request: Request) -> Response:
    try:
        await check_csrf(request)
    except CsrfRefused as exc:
        return _error(request, None, exc)
    response = RedirectResponse("/memory/sign-in", status_code=303)
    end_session(request, response)
    return response


@router.get("")
async def index(
    request: Request,
    dash: DashboardDep,
    who: VisitorDep,
    q: str = "",
    kind: str = "",
    scope: str = "",
    product_id: str = "",
    scope_path: str = "",
    tag: str = "",
    visibility: str = "",
    source: str = "",
    created_from: str = "",
    created_to: str = "",
    sort: str = "",
    weaker: str = "",
    expired: str = "",
    after: Annotated[str | None, Query(max_length=MAX_CURSOR_CHARS)] = None,
    seen: Annotated[int, Query(ge=0, le=10**9)] = 0,
) -> Response:
    """`seen`: how many memories the pages before this one showed (only for "26–50 of")."""
    filters = {
        "q": q,
        "kind": kind,
        "scope": scope,
        "product_id": product_id.strip(),
        "scope_path": scope_path.strip(),
        "tag": tag,
        "visibility": visibility,
        "source": source,
        "created_from": created_from,
        "created_to": created_to,
        "sort": sort,
        "weaker": "1" if weaker else "",
        "expired": "1" if expired else "",
    }
    partial = request.headers.get("HX-Request") == "true" and not request.headers.get("HX-Boosted")
    try:
        request_ = _browse_request(filters, after)
        page = await dash.browse(who, request_)
        bulletin = await _bulletin_of(dash, who, filters)
    except DomainError as exc:
        exc = _named_as_in_the_form(exc)
        if partial:
            return _render(
                request,
                "_problems.html",
                422,
                problems=getattr(exc, "problems", []),
                message=_message(exc),
            )
        return _error(request, who, exc)
    next_link = None
    if page.next_cursor is not None:
        more = {"after": page.next_cursor, "seen": seen + len(page.items)}
        next_link = "/memory?" + urlencode({**_non_empty(filters), **more})
    return _render(
        request,
        "_results.html" if partial else "index.html",
        who=who,
        filters=filters,
        page=page,
        seen=seen if after else 0,
        bulletin=bulletin,
        next_link=next_link,
        first_link="/memory?" + urlencode(_non_empty(filters)) if after else None,
        link_with=lambda **changes: "/memory?" + urlencode(_non_empty({**filters, **changes})),
        can_audit=allows(who, Action.READ_EXPIRED),
    )


@router.get("/m/{memory_id}")
async def memory_page(
    request: Request, memory_id: str, dash: DashboardDep, who: VisitorDep
) -> Response:
    try:
        view = await dash.view(who, memory_id)
    except DomainError as exc:
        return _error(request, who, exc)
    if isinstance(view, Tombstone):
        return _render(request, "tombstone.html", who=who, stone=view, m=view.memory)
    return _render(request, "memory.html", who=who, view=view, m=view.memory)


@router.get("/m/{memory_id}/forget")
async def confirm_forget(
    request: Request, memory_id: str, dash: DashboardDep, who: VisitorDep
) -> Response:
    try:
        require(who, Action.FORGET)  # no confirmation page for a forget it may not do
        memory = await dash.reader.get(who, memory_id)
    except DomainError as exc:
        return _error(request, who, exc)
    return _render(request, "forget.html", who=who, m=memory)


@router.post("/m/{memory_id}/forget")
async def forget(request: Request, memory_id: str, dash: DashboardDep, who: VisitorDep) -> Response:
    try:
        await check_csrf(request)
        # indexed: once this answers, the memory is gone from search too.
        status = await dash.forget(who, memory_id, "indexed")
    except (DomainError, CsrfRefused) as exc:
        return _error(request, who, exc)
    return _render(request, "forgotten.html", who=who, memory_id=memory_id, status=status)


@router.post("/m/{memory_id}/pin")
async def pin(
    request: Request,
    memory_id: str,
    dash: DashboardDep,
    who: VisitorDep,
    pinned: Annotated[str, Form()] = "",
) -> Response:
    try:
        await check_csrf(request)
        await dash.update(who, memory_id, MemoryChanges(pinned=pinned == "true"), wait="persisted")
    except (DomainError, CsrfRefused) as exc:
        return _error(request, who, exc)
    return RedirectResponse(f"/memory/m/{memory_id}", status_code=303)


@router.get("/stats")
async def stats_page(request: Request, dash: DashboardDep, who: VisitorDep) -> Response:
    stats = await dash.stats(who)
    peak = max([1] + [max(a.saves, a.recalls) for a in stats.activity or []])
    return _render(request, "stats.html", who=who, stats=stats, peak=peak)


@router.get("/state")
async def state_page(
    request: Request,
    dash: DashboardDep,
    who: VisitorDep,
    scope: str = "",
    after: Annotated[str | None, Query(max_length=64)] = None,
) -> Response:
    """Key/value memory of one node (the caller's home unless another is chosen), read-only,
    a page at a time in the order entries were last written."""
    node = scope.strip() or who.home
    try:
        listing = await dash.kv.list(who, node, after, STATE_PAGE)
    except DomainError as exc:
        return _error(request, who, exc)
    next_link = None
    if listing.next_cursor is not None:
        next_link = "/memory/state?" + urlencode({"scope": node, "after": listing.next_cursor})
    return _render(request, "state.html", who=who, listing=listing, next_link=next_link)


# The selection's fields the index's form names otherwise (one kind, tags comma-separated).
_FORM_NAMES = {"kinds": "kind", "tags": "tag"}


def _named_as_in_the_form(exc: DomainError) -> DomainError:
    """A refused filter's problems under the names of the form's fields the visitor filled."""
    if not isinstance(exc, InvalidInput):
        return exc
    return InvalidInput(
        [FieldProblem(_FORM_NAMES.get(p.field, p.field), p.message) for p in exc.problems]
    )


def _browse_request(filters: dict[str, str], after: str | None) -> BrowseRequest:
    searching = bool(filters["q"].strip())
    try:
        sort = Sort(filters["sort"]) if filters["sort"] else None
    except ValueError:
        sort = None
    if sort is None:
        sort = Sort.RELEVANCE if searching else Sort.NEWEST
    tags = [t.strip() for t in filters["tag"].split(",") if t.strip()]
    selection = SelectionRequest(
        scope=filters["scope"].strip() or None,
        scope_path=filters["scope_path"] or None,  # validated like the API's scope_path
        product_id=filters["product_id"] or None,
        kinds=[filters["kind"]] if filters["kind"] else None,
        tags=tags or None,
        include_expired=bool(filters["expired"]),  # members only (the policy's read_expired)
    )
    refine = RefinementFields(
        filters["visibility"], filters["source"], filters["created_from"], filters["created_to"]
    )
    return BrowseRequest(filters["q"], selection, refine, sort, after, bool(filters["weaker"]))


async def _bulletin_of(
    dash: Dashboard, who: Principal, filters: dict[str, str]
) -> ScopeBulletin | None:
    """A scope view (a scope, a product or a node chosen) opens with that node's bulletin."""
    if not (filters["scope"] or filters["product_id"] or filters["scope_path"]):
        return None
    return await dash.bulletin(
        who,
        filters["scope"] or None,
        filters["product_id"] or None,
        filters["scope_path"] or None,
    )


def _non_empty(filters: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in filters.items() if v}
