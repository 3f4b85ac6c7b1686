"""The console's actions of the formats that carry their own (docs/web.md "The formats' own actions
from the console"): Board Game Arena tables, join deadline and final, Rite of Command deals. Each
calls the API's own service and answers as every console action does (app/web/console.py)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.api.deps import SessionDep
from app.core.access import Access, Principal
from app.core.errors import InvalidInput, Problem
from app.services import events as event_svc
from app.services import rite_of_command as roc_svc
from app.services.presets import bga as bga_svc
from app.services.reads import get_event, settings_of
from app.web import forms
from app.web.console import FLASH, _act, _judged, _match_of, _signed_in, _taken_flash, csrf_of
from app.web.render import page
from app.web.views import entries_of

router = APIRouter(prefix="/console", include_in_schema=False)


# --------------------------------------------------------------------------- the formats' own actions
# Board Game Arena round robins (bga-round-robin.md), Rite of Command deals (rite-of-command.md):
# each the API's own service, the form read as the API's body (docs/web.md "Formats").
@router.post("/e/{event_id}/matches/{match_id}/bga/tables")
async def record_bga_table(request: Request, event_id: str, match_id: str, session: SessionDep) -> Response:
    """A BGA table created for a scheduled match, judged with every other recorded for it:
    ``POST /v1/matches/{id}/bga/tables``."""

    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        match = await _match_of(session, event_id, match_id)
        seated = [s.entry_id for s in sorted(match.seats, key=lambda s: s.seat)]
        keys = list(settings_of(await get_event(session, event_id)).table_settings)
        await bga_svc.record_table(session, match_id, principal, forms.bga_table_body(form, seated, keys))

    return await _act(request, session, event_id, action, f"#m-{match_id}")


@router.post("/e/{event_id}/bga/join-deadline")
async def close_bga_join_deadline(request: Request, event_id: str, session: SessionDep) -> Response:
    """The join deadline closed, with the players ticked absent per table (``absent:{match}:{entry}``):
    ``POST /v1/events/{id}/bga/join-deadline``."""

    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        absent: dict[str, list[str]] = {}
        for key, value in form.items():
            kind, _, rest = key.partition(":")
            match_id, _, entry_id = rest.partition(":")
            if kind == "absent" and value == "yes" and entry_id:
                absent.setdefault(match_id, []).append(entry_id)
        await bga_svc.close_join_deadline(session, event_id, absent)

    return await _act(request, session, event_id, action, "#bga-deadline")


@router.post("/e/{event_id}/bga/final/{step}")
async def bga_final(request: Request, event_id: str, step: str, session: SessionDep) -> Response:
    """The final of a 2-player BGA round robin: a finalist registered (``registrations``) or
    withdrawn (``withdrawals``), or the registration closed (``deadline``): the API's
    ``POST /v1/events/{id}/bga/final/…``."""

    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        entry_id = str(form.get("entry_id", ""))
        if step == "registrations":
            await bga_svc.register_finalist(session, event_id, principal, entry_id)
        elif step == "withdrawals":
            await bga_svc.withdraw_finalist(session, event_id, principal, entry_id)
        elif step == "deadline":
            await bga_svc.close_final_registration(session, event_id)
        else:
            raise InvalidInput(f"no such step of the final: {step}", [Problem(("step",), "unknown")])

    return await _act(request, session, event_id, action, "#bga-final")


@router.get("/e/{event_id}/matches/{match_id}/deal", response_class=HTMLResponse)
async def roc_deal(
    request: Request, event_id: str, match_id: str, session: SessionDep, deck_size: str = ""
) -> HTMLResponse:
    """A Rite of Command match's deal for a deck size (the match's seed deals it), to hand to its
    players, and the form that takes the rings they played, turn by turn."""
    principal, token = await _signed_in(request, session, event_id, Access.RESULTS)
    flash = _taken_flash(request, token, event_id) or {}
    match = await _match_of(session, event_id, match_id)
    entries = await entries_of(session, event_id, principal)
    names = {e.entry.id: e.entry.name for e in entries}
    try:
        size = forms.deck_size(deck_size)
    except InvalidInput as exc:
        size, flash = roc_svc.DEFAULT_DECK, {**flash, "error": exc.detail}
    dealt = await roc_svc.match_deal(session, match_id, size)
    if flash.get("error"):
        flash["error"] = forms.named(str(flash["error"]), names)
        flash["problems"] = [forms.named(pr, names) for pr in flash.get("problems") or []]
    event = (await event_svc.get_event_view(session, event_id)).event
    response = page(
        request,
        "console_deal.html",
        event=event,
        match=match,
        deal=dealt,
        players=[names.get(e, e) for e in dealt.seats],
        csrf=csrf_of(token),
        **flash,
    )
    if FLASH in request.cookies:
        response.delete_cookie(FLASH, path="/console")
    return response


def _stakes(form: dict[str, Any]) -> dict[str, object] | None:
    """Both players' wagers (a number, or a text such as "20 linen"), or none at all."""
    given = {p: str(form.get(f"wager:{p}", "")).strip() for p in ("1", "2")}
    if not any(given.values()):
        return None
    missing = [p for p, v in given.items() if not v]
    if missing:
        raise InvalidInput(
            f"give both players' wagers, or neither; player {missing[0]} has none",
            [Problem(("wagers", p), "required when the other player wagers") for p in missing],
        )
    out: dict[str, object] = {}
    for p, v in given.items():
        try:
            out[p] = forms.number(v)
        except ValueError:
            out[p] = v
    return out


@router.post("/e/{event_id}/matches/{match_id}/deal", response_class=HTMLResponse)
async def roc_plays(request: Request, event_id: str, match_id: str, session: SessionDep) -> Response:
    """The rings a Rite of Command match's cards went into, turn by turn (one digit, 1–3, a
    turn): the match's record, judged and shown before it is recorded, as a pasted game log is."""
    form = dict(await request.form())
    size = str(form.get("deck_size", "")).strip()
    back = f"/matches/{match_id}/deal?deck_size={quote(size, safe='')}"

    async def action(principal: Principal, form: dict[str, Any]) -> Any:
        deck = forms.deck_size(form.get("deck_size"))
        dealt = await roc_svc.match_deal(session, match_id, deck)
        rings = [int(c) for c in str(form.get("rings", "")) if c.isdigit()]
        wrong = [str(r) for r in rings if r not in (1, 2, 3)]
        if wrong or len(rings) != 2 * deck:
            msg = (
                f"a ring is 1, 2 or 3, not {wrong[0]}"
                if wrong
                else f"give the ring of every card played: {2 * deck} turns, not {len(rings)}"
            )
            raise InvalidInput(msg, [Problem(("rings",), msg)])
        log = roc_svc.record(deck, dealt.deal.first_player, rings, _stakes(form))
        return await _judged(request, session, event_id, match_id, principal, json.dumps(log))

    return await _act(request, session, event_id, action, back, Access.RESULTS)
