"""Players' personal links as the console shows them, once (docs/web.md "The player's token"): each
link and what its card's QR code opens, the cards still on the page when another batch is
registered or a link reissued, and the cards themselves (name, link, QR code)."""

from __future__ import annotations

import re
from typing import Any

from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.vocabulary import EventStatus
from app.services import events as event_svc
from app.services.reads import get_event, settings_of
from app.services.tokens import hash_token
from app.web.public import qr_svg
from app.web.render import site_url

TOKEN = re.compile(r"[A-Za-z0-9_-]{16,128}")  # what new_token makes (token_urlsafe), with room
CARRIED_MAX = 2000  # cards a page may carry along (an event's field, with room)

Link = tuple[str, str, str]  # the player's name, their personal link, what the card's code opens


async def door(session: AsyncSession, event_id: str) -> bool:
    """Whether players check in at the door now: the event takes check-in and has not started."""
    event = await get_event(session, event_id)
    return event.status == EventStatus.REGISTRATION and settings_of(event).check_in


def link(request: Request, event_id: str, name: str, token: str, at_door: bool) -> Link:
    """A player's personal link, and what its card's QR code opens: the check-in page (the same
    token, one tap to check in) while the event checks players in, else the personal link."""
    base = f"{site_url(request)}/e/{event_id}"
    return (
        name,
        f"{base}/me#token={token}",
        f"{base}/check-in#token={token}" if at_door else f"{base}/me#token={token}",
    )


async def carried(request: Request, session: AsyncSession, event_id: str, form: dict[str, Any]) -> list[Link]:
    """The cards the page showed when its form was sent (``shown``: their tokens, space-separated,
    put in the form by console.js), those whose token still works: shown again beside the new ones,
    so that a second batch does not take the first one's cards away. A token replaced since (a new
    link) or of another event shows nothing."""
    tokens = [t for t in str(form.get("shown", "")).split() if TOKEN.fullmatch(t)][:CARRIED_MAX]
    if not tokens:
        return []
    by_hash = {hash_token(t): t for t in tokens}
    entries = await event_svc.entries_holding(session, event_id, list(by_hash))
    at_door = await door(session, event_id)
    return [link(request, event_id, e.name, by_hash[e.token_hash], at_door) for e in entries]


def cards(links: list[Link]) -> list[tuple[str, str, str, bool]]:
    """Each link as its card shows it: name, link, QR code (SVG), and whether it checks in."""
    return [(name, url, qr_svg(scan), scan != url) for name, url, scan in links]
