"""The organizer's console: signed in with the organizer token (an HttpOnly, SameSite=Strict cookie),
every form carrying a token derived from it (CSRF), every action one call of the API's own service.
A member of the event's staff signs in the same way with its own token (its sign-in link) and gets
the console of its event with what its role allows: each action names its ``Access`` rule, checked
before anything runs, so a forged form is refused (403) as the API would refuse it."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.csv_io import read_entry_rows
from app.api.deps import SessionDep, principal_of_token
from app.api.events import _spec, _validated
from app.api.limits import TooManyFailures
from app.api.schemas import EventUpdate
from app.core.access import Access, Principal, authorize
from app.core.errors import Conflict, DomainError, Forbidden, InvalidInput, Problem, Unauthorized
from app.core.vocabulary import MatchStatus, Role, StaffRole
from app.jobs import discard_pending
from app.services import events as event_svc
from app.services import games as game_svc
from app.services import lifecycle
from app.services import results as result_svc
from app.services import seasons as season_svc
from app.services import staff as staff_svc
from app.services.keyring import keyring_of
from app.services.preset_catalog import get_preset, list_presets
from app.services.presets import battlebooks as bb_svc
from app.services.presets import titan_arena as titan_svc
from app.services.reads import load_match, names_of
from app.services.tokens import hash_token, new_token
from app.web import forms, links, verdicts
from app.web.i18n import translator
from app.web.public import qr_svg
from app.web.render import language, page, site_url
from app.web.views import LIVE_TYPES, entries_of, event_page, playing

router = APIRouter(prefix="/console", include_in_schema=False)

COOKIE = "arbiter_console"
FLASH = "arbiter_console_flash"  # a refusal, carried across the redirect to the page that shows it
FLASH_BYTES = 3800  # what a browser keeps of one cookie, with room for its attributes
SEASONS_OFFERED = 200  # the newest seasons the new-event form offers (the API takes any season)


def csrf_of(token: str) -> str:
    """The forms' token: derived from the organizer token, which a third-party page cannot read."""
    return hmac.new(token.encode(), b"arbiter-console-csrf", hashlib.sha256).hexdigest()[:40]


def _same_origin(request: Request) -> None:
    origin = request.headers.get("origin")
    if origin and origin != "null":
        expected = f"{request.url.scheme}://{request.headers.get('host', '')}"
        if origin != expected:
            raise Forbidden("the form was sent from another site")
    elif origin == "null":
        raise Forbidden("the form was sent from another site")


async def _signed_in(
    request: Request, session: AsyncSession, event_id: str, access: Access = Access.ORGANIZER
) -> tuple[Principal, str]:
    """The principal the console's cookie speaks for, if ``access`` lets it act on this event: the
    organizer (or the admin) for everything, its staff for what their role may do."""
    token = request.cookies.get(COOKIE)
    if not token:
        raise Unauthorized("sign in with the organizer token")
    principal = await principal_of_token(request, session, token)
    return authorize(principal, access, event_id=event_id), token


async def _abilities(session: AsyncSession, event_id: str, principal: Principal) -> dict[str, Any]:
    """What the page offers the one signed in (the server checks each action again): the
    organizer everything; a judge results, drops and swaps; a scorekeeper results."""
    organizes = principal.organizes(event_id)
    can: dict[str, Any] = {
        "organize": organizes,
        "judge": organizes or principal.staffs(event_id, StaffRole.JUDGE),
    }
    if principal.staff_id is not None:
        me = await staff_svc.member(session, event_id, principal.staff_id)
        can["me"] = {"name": me.name, "role": me.role}
    if organizes:
        can["staff"] = await staff_svc.list_staff(session, event_id)
    return can


async def _form(request: Request) -> dict[str, Any]:
    return dict(await request.form())


async def _console(
    request: Request,
    session: AsyncSession,
    event_id: str,
    principal: Principal,
    token: str,
    status: int = 200,
    **extra: Any,
) -> HTMLResponse:
    p = await event_page(session, event_id, preset_views=True, fresh=True)
    entries = await entries_of(session, event_id, principal)
    names = {e.entry.id: e.entry.name for e in entries}
    can = await _abilities(session, event_id, principal)
    if "error" in extra:  # a refusal speaks of players by name, never by id
        extra["error"] = forms.named(str(extra["error"]), names)
        extra["problems"] = [forms.named(pr, names) for pr in extra.get("problems", [])]
    return page(
        request,
        "console.html",
        status=status,
        p=p,
        entries=entries,
        csrf=csrf_of(token),
        live_types=LIVE_TYPES,
        can=can,
        missing=forms.missing(p.event, entries),
        playing=playing(p),
        books={e.entry.id: list(e.entry.characters or []) for e in entries},
        now_utc=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S"),
        **extra,
    )


async def _verdict(
    request: Request,
    session: AsyncSession,
    event_id: str,
    principal: Principal,
    token: str,
    match: Any,
    shown: Any,
    log: str,
) -> HTMLResponse:
    """The adjudicator's verdict of a game log, before it is recorded: each seat's place and score
    by name, the verdict's details, and the button that records it."""
    entries = await entries_of(session, event_id, principal)
    names = {e.entry.id: e.entry.name for e in entries}
    event = (await event_svc.get_event_view(session, event_id)).event
    # a verdict in words (who won, why, each player at the end), not its JSON
    seat_names = [names.get(s.entry_id, s.entry_id) for s in shown.report.seats]
    said = verdicts.in_words(shown.adjudicator, shown.verdict, names, seat_names)
    return page(
        request,
        "console_verdict.html",
        said=said,
        event=event,
        match=match,
        seats=sorted(
            ((names.get(s.entry_id, s.entry_id), s) for s in shown.report.seats),
            key=lambda ns: (ns[1].place is None, ns[1].place or 0),
        ),
        outcome=shown.report.outcome,
        details=json.dumps(shown.verdict, ensure_ascii=False, indent=2) if shown.verdict and not said else "",
        adjudicator=verdicts.adjudicator_named(shown.adjudicator, translator(language(request))),
        log=log,
        csrf=csrf_of(token),
    )


def _where(problem: Problem) -> str:
    """Where a problem is, when it helps the organizer (a pasted row, a setting); a result's seats
    are named in the message itself."""
    if not problem.loc or problem.loc[0] in ("seats", "outcome", "choice"):
        return ""
    return ".".join(str(x) for x in problem.loc) + ": "


async def _failed(session: AsyncSession, exc: DomainError) -> dict[str, Any]:
    """A refused action changes nothing: roll the request's transaction back, keep the message."""
    discard_pending(session)
    await session.rollback()
    detail = exc.detail or exc.title
    problems = [_where(p) + p.msg for p in getattr(exc, "problems", []) if p.msg != detail]
    return {"error": detail, "problems": list(dict.fromkeys(problems)), "error_status": exc.status}


def _flash_sign(token: str, payload: str) -> str:
    return hmac.new(token.encode(), b"arbiter-console-flash:" + payload.encode(), hashlib.sha256).hexdigest()


def _set_flash(request: Request, response: Response, token: str, flash: dict[str, Any]) -> None:
    """The refusal, signed with the organizer token, for the page the redirect leads to; what was
    typed goes with it when it fits in a cookie (a long paste is then typed again)."""
    for shown in (flash, {**flash, "kept": {}}, {**flash, "kept": {}, "problems": flash["problems"][:5]}):
        raw = json.dumps(shown, separators=(",", ":"), ensure_ascii=True)
        payload = base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")
        value = f"{payload}.{_flash_sign(token, payload)}"
        if len(value) <= FLASH_BYTES:
            break
    response.set_cookie(
        FLASH,
        value,
        max_age=120,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/console",
    )


def _taken_flash(request: Request, token: str, event_id: str) -> dict[str, Any] | None:
    """The refusal a redirect carried here, if it is this organizer's for this event."""
    value = request.cookies.get(FLASH, "")
    payload, _, sig = value.partition(".")
    if not payload or not forms.same_token(sig, _flash_sign(token, payload)):
        return None
    try:
        flash = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except ValueError:
        return None
    if not isinstance(flash, dict) or flash.get("event_id") != event_id:
        return None
    return {k: flash.get(k) for k in ("error", "problems", "error_status", "kept")}


async def _act(
    request: Request,
    session: AsyncSession,
    event_id: str,
    action: Callable[[Principal, dict[str, Any]], Awaitable[Any]],
    anchor: str = "",
    access: Access = Access.ORGANIZER,
) -> Response:
    """Check the sign-in (``access``: who may take this action) and the form's token, run one
    action, and show the console again."""
    _same_origin(request)
    principal, token = await _signed_in(request, session, event_id, access)
    form = await _form(request)
    if not forms.same_token(form.get("csrf", ""), csrf_of(token)):
        raise Forbidden("the form's token is missing or stale: reload the console")
    try:
        shown = await action(principal, form)
    except DomainError as exc:  # post/redirect/get: the refusal is shown by the page redirected to
        failure = await _failed(session, exc)
        kept = {k: v for k, v in form.items() if k not in ("csrf", "version") and isinstance(v, str)}
        response = RedirectResponse(f"/console/e/{event_id}{anchor}", status_code=303)
        _set_flash(request, response, token, {**failure, "event_id": event_id, "kept": kept})
        return response
    if isinstance(shown, dict) and "verdict_of" in shown:  # a verdict shown, nothing recorded
        discard_pending(session)
        await session.rollback()
        return await _verdict(request, session, event_id, principal, token, *shown["verdict_of"])
    if isinstance(shown, dict):  # an answer shown once (new entries' personal links, with QR codes)
        cards = links.cards(shown.get("links", []))
        return await _console(request, session, event_id, principal, token, **{**shown, "links": cards})
    return RedirectResponse(f"/console/e/{event_id}{anchor}", status_code=303)


# --------------------------------------------------------------------------- signing in, creating
def _home_key(session: AsyncSession) -> str:
    """What signs the home page's refusals (no organizer token is known there): the server's key."""
    return "arbiter-console-home:" + keyring_of(session).keys[0]


@router.get("", response_class=HTMLResponse)
async def home(request: Request, session: SessionDep, preset: str = "generic") -> HTMLResponse:
    flash = _taken_flash(request, _home_key(session), "")
    response = await _home(request, session, preset, **(flash or {}))
    if FLASH in request.cookies:
        response.delete_cookie(FLASH, path="/console")
    return response


def _home_refused(
    request: Request, session: AsyncSession, failure: dict[str, Any], kept: dict[str, Any], at: str
) -> Response:
    """Post/redirect/get for the home page's forms: the refusal, and what was typed (never a
    token), shown by the page redirected to."""
    preset = quote(str(kept.get("preset", "generic")), safe="")
    response = RedirectResponse(f"/console?preset={preset}{at}", status_code=303)
    _set_flash(request, response, _home_key(session), {**failure, "event_id": "", "kept": kept})
    return response


async def _home(
    request: Request, session: AsyncSession, preset: str, status: int = 200, **extra: Any
) -> HTMLResponse:
    names = [p.name for p in list_presets()]
    chosen = get_preset(preset if preset in names else "generic")
    catalog = await game_svc.list_games(session)
    games = [g for g in catalog if chosen.suits(g.key)]
    seasons, _ = await season_svc.listing(session, SEASONS_OFFERED, None)
    return page(
        request,
        "console_home.html",
        status=status,
        presets=names,
        preset=chosen,
        knobs=forms.knobs(chosen.settings, offered=chosen.offered),
        games=games,
        restricted=len(games) < len(catalog),
        seasons=[s.season for s in seasons],
        **extra,
    )


@router.post("/sign-in", response_class=HTMLResponse)
async def sign_in(request: Request, session: SessionDep) -> Response:
    _same_origin(request)
    form = await _form(request)
    token = str(form.get("token", "")).strip()
    try:
        principal = await principal_of_token(request, session, token) if token else None
        if principal is not None and principal.role == Role.ADMIN:
            # the admin token recovers an event whose organizer token is lost: the event named
            event_id = _event_id_of(str(form.get("event", "")))
            if not event_id:
                raise InvalidInput(
                    "with the admin token, give the event's id or address",
                    [Problem(("event",), "required with the admin token")],
                )
            event_id = (await event_svc.get_event_view(session, event_id)).event.id
        elif (
            principal is None or principal.role not in (Role.ORGANIZER, Role.STAFF) or not principal.event_id
        ):
            raise Unauthorized("that is not an organizer or staff token (nor the admin token)")
        else:
            event_id = principal.event_id
    except TooManyFailures as exc:  # its status and Retry-After are the answer: a client waits
        await _failed(session, exc)
        return await _home(request, session, "generic", exc.status, error=exc.detail)
    except DomainError as exc:
        failure = await _failed(session, exc)
        kept = {"event": str(form.get("event", ""))}
        return _home_refused(request, session, {**failure, "problems": []}, kept, "#h-signin")
    response = RedirectResponse(f"/console/e/{event_id}", status_code=303)
    _set_cookie(request, response, token)
    return response


def _event_id_of(text: str) -> str:
    """An event's id as typed: the id itself, or any of its pages' addresses (…/e/{id}/…)."""
    text = text.strip()
    if "/e/" in text:
        text = text.split("/e/", 1)[1]
    return text.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0].strip()


def _set_cookie(request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        COOKIE, token, httponly=True, samesite="strict", secure=request.url.scheme == "https", path="/console"
    )


@router.post("/sign-out")
async def sign_out(request: Request) -> Response:
    _same_origin(request)
    response = RedirectResponse("/console", status_code=303)
    response.delete_cookie(COOKIE, path="/console")
    return response


@router.post("/events", response_class=HTMLResponse)
async def create_event(request: Request, session: SessionDep) -> Response:
    """Create an event from a preset and its knobs (the admin token, as the API asks)."""
    _same_origin(request)
    form = {k: str(v) for k, v in (await _form(request)).items()}
    preset_name = form.get("preset", "generic")
    try:
        admin = await principal_of_token(request, session, form.get("admin_token", "").strip() or "-")
        authorize(admin, Access.ADMIN)
        preset = get_preset(preset_name)
        name = form.get("name", "").strip()
        if not name:
            raise InvalidInput("the event needs a name", [Problem(("name",), "required")])
        game = form.get("game", "").strip()
        if not game:  # a preset that suits any game names none: the organizer chooses
            raise InvalidInput("choose the game the event plays", [Problem(("game",), "required")])
        token = new_token()
        event = await event_svc.create_event(
            session,
            name,
            game,
            preset.name,
            forms.overrides(preset.settings, form, preset.offered),
            None,
            hash_token(token),
            form.get("season", "").strip() or None,
        )
    except DomainError as exc:
        failure = await _failed(session, exc)
        kept = {k: v for k, v in form.items() if k not in ("admin_token", "csrf")}
        return _home_refused(request, session, failure, kept, "#create")
    response = page(request, "console_created.html", event=event, token=token)
    _set_cookie(request, response, token)
    return response


# --------------------------------------------------------------------------- the event's console
@router.get("/e/{event_id}", response_class=HTMLResponse)
async def console(request: Request, event_id: str, session: SessionDep) -> HTMLResponse:
    try:
        principal, token = await _signed_in(request, session, event_id, Access.RESULTS)
    except DomainError as exc:
        return await _home(request, session, "generic", exc.status, error=exc.detail)
    flash = _taken_flash(request, token, event_id) or {}
    if flash.get("kept") and principal.organizes(event_id):  # a refused form: the cards it carried
        flash["links"] = links.cards(await links.carried(request, session, event_id, flash["kept"]))
    response = await _console(request, session, event_id, principal, token, **flash)
    if FLASH in request.cookies:
        response.delete_cookie(FLASH, path="/console")
    return response


@router.post("/e/{event_id}/entries", response_class=HTMLResponse)
async def register(request: Request, event_id: str, session: SessionDep) -> Response:
    """Paste names (one a line) or upload a CSV: all or nothing, as the API's bulk registration."""

    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        upload = form.get("csv")
        raw = await upload.read() if upload is not None and hasattr(upload, "read") else b""
        if raw.strip():
            try:
                text = raw.decode("utf-8-sig")
            except UnicodeDecodeError:
                raise InvalidInput(
                    "the file is not UTF-8", [Problem(("csv",), "must be UTF-8 text")]
                ) from None
            kind, rows = "csv", read_entry_rows(text)
        else:
            kind, rows = "rows", forms.names_rows(str(form.get("names", "")))
        if not rows:
            raise InvalidInput(
                "nothing to register", [Problem(("names",), "paste names or choose a CSV file")]
            )
        specs = _validated(rows, kind)
        tokens = [new_token() for _ in specs]
        entries = await event_svc.add_entries(
            session, event_id, [_spec(b) for b in specs], [hash_token(t) for t in tokens], kind
        )
        door = await links.door(session, event_id)
        new = [links.link(request, event_id, e.name, t, door) for e, t in zip(entries, tokens, strict=True)]
        return {"links": await links.carried(request, session, event_id, form) + new}

    return await _act(request, session, event_id, action, "#entries")


@router.post("/e/{event_id}/entries/{entry_id}/token", response_class=HTMLResponse)
async def reissue(request: Request, event_id: str, entry_id: str, session: SessionDep) -> Response:
    """A new personal link for one player (the old one stops working), shown once, beside the cards
    the page still showed (the player's old card, now void, is not among them)."""

    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        token = new_token()
        entry = await event_svc.reissue_entry_token(session, event_id, entry_id, hash_token(token), principal)
        new = links.link(request, event_id, entry.name, token, await links.door(session, event_id))
        return {"links": [*await links.carried(request, session, event_id, form), new]}

    return await _act(request, session, event_id, action, "#entries")


@router.post("/e/{event_id}/entries/tokens", response_class=HTMLResponse)
async def reissue_all(request: Request, event_id: str, session: SessionDep) -> Response:
    """New links for every player still in the event, on the organizer's word (every link handed
    out stops working): the sheet of everyone's cards, by name, shown once."""

    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        if form.get("sure") != "yes":
            msg = translator(language(request))("new_links_unconfirmed")
            raise InvalidInput(msg, [Problem(("sure",), msg)])
        issued = await event_svc.reissue_every_entry_token(session, event_id, principal)
        door = await links.door(session, event_id)
        sheet = [links.link(request, event_id, e.name, t, door) for e, t in issued]
        return {"links": sorted(sheet, key=lambda lk: lk[0].casefold()), "sheet": True}

    return await _act(request, session, event_id, action, "#entries")


@router.post("/e/{event_id}/start")
async def start(request: Request, event_id: str, session: SessionDep) -> Response:
    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        await lifecycle.start(session, event_id, principal, "drop")

    return await _act(request, session, event_id, action, "#round")


@router.post("/e/{event_id}/pair")
async def pair(request: Request, event_id: str, session: SessionDep) -> Response:
    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        await lifecycle.pair(session, event_id, None)

    return await _act(request, session, event_id, action, "#round")


@router.post("/e/{event_id}/heats")
async def open_heats(request: Request, event_id: str, session: SessionDep) -> Response:
    """Open tables of the players chosen (a heat each), while others are still played: the API's
    ``POST /v1/events/{id}/rounds {"tables"}``."""

    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        entries = await entries_of(session, event_id, principal)
        await lifecycle.pair(session, event_id, forms.heat_tables(form, [e.entry.id for e in entries]))

    return await _act(request, session, event_id, action, "#round")


@router.post("/e/{event_id}/final-rules")
async def final_rules(request: Request, event_id: str, session: SessionDep) -> Response:
    """A finalist's answer on the Colossal Arena rules, given by the organizer for them."""

    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        entry_id = str(form.get("entry_id", ""))
        await titan_svc.choose_final_rules(
            session, event_id, principal, entry_id, form.get("colossal") == "yes"
        )

    return await _act(request, session, event_id, action, "#final-rules")


@router.post("/e/{event_id}/advance")
async def advance(request: Request, event_id: str, session: SessionDep) -> Response:
    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        await lifecycle.close_stage(session, event_id)

    return await _act(request, session, event_id, action)


@router.post("/e/{event_id}/cancel")
async def cancel(request: Request, event_id: str, session: SessionDep) -> Response:
    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        if form.get("sure") != "yes":
            raise InvalidInput("confirm the cancellation", [Problem(("sure",), "tick the box to cancel")])
        await event_svc.cancel_event(session, event_id, principal)

    return await _act(request, session, event_id, action)


@router.post("/e/{event_id}/rounds/{number}/undo")
async def undo(request: Request, event_id: str, number: int, session: SessionDep) -> Response:
    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        await lifecycle.undo_round(session, event_id, number, principal)

    return await _act(request, session, event_id, action, "#round")


@router.post("/e/{event_id}/entries/{entry_id}/drop")
async def drop(request: Request, event_id: str, entry_id: str, session: SessionDep) -> Response:
    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        await event_svc.drop_entry(session, event_id, entry_id, principal)

    return await _act(request, session, event_id, action, "#entries", Access.JUDGE)


async def _match_of(session: AsyncSession, event_id: str, match_id: str) -> Any:
    match = await load_match(session, match_id)
    if match.event_id != event_id:
        raise Forbidden("the match is not of this event")
    return match


def _still_open(request: Request, match: Any) -> None:
    """A result pressed on a page older than the table's result (another tab, a player's report):
    said in the organizer's words (the service refuses it too, in the API's)."""
    if match.status == MatchStatus.CONFIRMED:
        raise Conflict(translator(language(request))("refused_recorded", table=match.table))


@router.post("/e/{event_id}/matches/{match_id}/result")
async def report(request: Request, event_id: str, match_id: str, session: SessionDep) -> Response:
    """One click: the organizer's report (final), or a ruling on a dispute."""

    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        match = await _match_of(session, event_id, match_id)
        _still_open(request, match)
        await result_svc.report(session, match_id, principal, forms.body_of(match, form))

    return await _act(request, session, event_id, action, f"#m-{match_id}", Access.RESULTS)


def _game_log(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        msg = f"the game log is not JSON ({exc})"
        raise InvalidInput(msg, [Problem(("game_log",), msg)]) from None


async def _log_text(form: dict[str, Any]) -> str:
    """The game log pasted, or the file chosen (the file wins when both are given)."""
    upload = form.get("logfile")
    raw = await upload.read() if upload is not None and hasattr(upload, "read") else b""
    if raw.strip():
        try:
            return str(raw.decode("utf-8-sig"))
        except UnicodeDecodeError:
            raise InvalidInput(
                "the file is not UTF-8", [Problem(("logfile",), "must be UTF-8 text")]
            ) from None
    text = str(form.get("log", "")).strip()
    if not text:
        raise InvalidInput("paste the game log or choose its file", [Problem(("log",), "required")])
    return text


@asynccontextmanager
async def _seats_named(session: AsyncSession, match: Any) -> AsyncIterator[None]:
    """A refusal of a record that numbers the table's seats (a Battle Royal record's "seat 2"),
    said with each seat's player beside its number."""
    seats = [s.entry_id for s in sorted(match.seats, key=lambda s: s.seat)]
    names = await names_of(session, seats)
    try:
        yield
    except DomainError as exc:
        raise forms.seats_named(exc, [names.get(e, e) for e in seats]) from None


async def _judged(
    request: Request, session: AsyncSession, event_id: str, match_id: str, principal: Principal, text: str
) -> dict[str, Any]:
    """The adjudicator's verdict of a game log, to be shown and not recorded."""
    match = await _match_of(session, event_id, match_id)
    _still_open(request, match)
    table = {"id": match.id, "table": match.table}  # kept: the rollback expires the row
    async with _seats_named(session, match):
        shown = await result_svc.preview(session, match_id, principal, {"game_log": _game_log(text)})
    return {"verdict_of": (table, shown, json.dumps(json.loads(text), ensure_ascii=False))}


@router.post("/e/{event_id}/matches/{match_id}/log", response_class=HTMLResponse)
async def game_log(request: Request, event_id: str, match_id: str, session: SessionDep) -> Response:
    """A game log pasted or uploaded: first the adjudicator's verdict, shown and not recorded
    (``step=preview``); then, on the organizer's word, the result it decides (``step=commit``)."""
    if (await request.form()).get("step") == "commit":

        async def commit(principal: Principal, form: dict[str, Any]) -> Any:
            match = await _match_of(session, event_id, match_id)
            _still_open(request, match)
            body = {"game_log": _game_log(str(form.get("log", "")))}
            async with _seats_named(session, match):
                await result_svc.report(session, match_id, principal, body)

        return await _act(request, session, event_id, commit, f"#m-{match_id}", Access.RESULTS)

    async def judge(principal: Principal, form: dict[str, Any]) -> Any:
        return await _judged(request, session, event_id, match_id, principal, await _log_text(form))

    return await _act(request, session, event_id, judge, f"#m-{match_id}", Access.RESULTS)


@router.post("/e/{event_id}/matches/{match_id}/heroes")
async def declare_hero(request: Request, event_id: str, match_id: str, session: SessionDep) -> Response:
    """A seat's hero declared before the game (BATTLEBOOKS), with the match version the page showed
    (If-Match): ``POST /v1/matches/{id}/heroes``."""

    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        await _match_of(session, event_id, match_id)
        version = str(form.get("version", "")) or None
        entry_id, character = str(form.get("entry_id", "")), str(form.get("character", "")).strip()
        await bb_svc.declare_hero(session, match_id, principal, entry_id, character, version)

    return await _act(request, session, event_id, action, f"#m-{match_id}")


@router.post("/e/{event_id}/matches/{match_id}/confirm")
async def confirm(request: Request, event_id: str, match_id: str, session: SessionDep) -> Response:
    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        _still_open(request, await _match_of(session, event_id, match_id))
        await result_svc.confirm(session, match_id, principal)

    return await _act(request, session, event_id, action, f"#m-{match_id}", Access.RESULTS)


@router.post("/e/{event_id}/matches/{match_id}/correct")
async def correct(request: Request, event_id: str, match_id: str, session: SessionDep) -> Response:
    """A correction of a confirmed result, with the version the organizer saw (If-Match)."""

    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        match = await _match_of(session, event_id, match_id)
        body = forms.body_of(match, form)
        await result_svc.correct(session, match_id, principal, str(form.get("version", "")), body)

    return await _act(request, session, event_id, action, f"#m-{match_id}", Access.RESULTS)


@router.post("/e/{event_id}/entries/{entry_id}/check-in")
async def check_in(request: Request, event_id: str, entry_id: str, session: SessionDep) -> Response:
    """Check an entry in, or take the check-in back (``present`` left out)."""

    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        await event_svc.check_in(session, event_id, entry_id, form.get("present") == "yes")

    return await _act(request, session, event_id, action, "#entries")


@router.post("/e/{event_id}/rounds/{number}/swap")
async def swap(request: Request, event_id: str, number: int, session: SessionDep) -> Response:
    """Swap two entries between unreported tables of the round (or their seats at one table)."""

    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        await lifecycle.swap_entries(
            session, event_id, number, str(form.get("a")), str(form.get("b")), principal
        )

    return await _act(request, session, event_id, action, "#round", Access.JUDGE)


@router.post("/e/{event_id}/rename")
async def rename(request: Request, event_id: str, session: SessionDep) -> Response:
    """Rename the event, with the version the page showed (If-Match), the API's own checks of a name."""

    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        try:
            body = EventUpdate.model_validate({"name": str(form.get("name", ""))})
        except ValidationError as exc:
            raise InvalidInput(
                "the name is not valid", [Problem(("name",), e.get("msg", "invalid")) for e in exc.errors()]
            ) from None
        await event_svc.update_event(session, event_id, str(form.get("version", "")), body.name, None)

    return await _act(request, session, event_id, action)


# --------------------------------------------------------------------------- the event's staff
@router.post("/e/{event_id}/staff", response_class=HTMLResponse)
async def issue_staff(request: Request, event_id: str, session: SessionDep) -> Response:
    """Name a scorekeeper or a judge (the organizer): its sign-in link, and its QR code, shown once."""

    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        name, role = forms.staff_fields(form)
        member, token = await staff_svc.issue(session, event_id, name, role, principal)
        url = f"{site_url(request)}/console#token={token}"
        return {"staff_link": {"name": member.name, "role": member.role, "url": url, "qr": qr_svg(url)}}

    return await _act(request, session, event_id, action, "#staff")


@router.post("/e/{event_id}/staff/{staff_id}/revoke")
async def revoke_staff(request: Request, event_id: str, staff_id: str, session: SessionDep) -> Response:
    """Revoke a member (the organizer): its link and token are refused from now on."""

    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        await staff_svc.revoke(session, event_id, staff_id, principal)

    return await _act(request, session, event_id, action, "#staff")
