"""Who may call a route, said in its signature (api.md "Authentication and tokens").

A protected route names its rule as a dependency: ``who: Annotated[Principal,
Depends(require(Access.ORGANIZER))]`` (or one of the aliases below), and FastAPI checks it before the
route runs, with the ids the path gives (``event_id``, ``entry_id``). ``app/core/access.py:
authorize`` is still the one comparison; this module only feeds it from the request. A rule that needs
loaded rows — an entry seated at a match — is checked by the service that loads them
(``Access.ORGANIZER_OR_SEATED``): here it requires a token, and the service decides with the seats.
The OpenAPI document's ``security`` follows from these dependencies (``app/api/contract.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends

from app.api.deps import MaybePrincipal
from app.core.access import Access, Principal, authorize
from app.core.errors import Unauthorized

Requirement = Callable[..., Awaitable[Principal]]


def _stating(access: Access, requirement: Requirement) -> Requirement:
    requirement.access = access  # type: ignore[attr-defined]  # read by app/api/contract.py
    return requirement


def _anywhere(access: Access) -> Requirement:
    async def requirement(principal: MaybePrincipal) -> Principal:
        return authorize(principal, access)

    return _stating(access, requirement)


def _in_event(access: Access) -> Requirement:
    async def requirement(event_id: str, principal: MaybePrincipal) -> Principal:
        return authorize(principal, access, event_id=event_id)

    return _stating(access, requirement)


def _for_entry(access: Access) -> Requirement:
    async def requirement(event_id: str, entry_id: str, principal: MaybePrincipal) -> Principal:
        return authorize(principal, access, event_id=event_id, entry_id=entry_id)

    return _stating(access, requirement)


def _in_season(access: Access) -> Requirement:
    async def requirement(season_id: str, principal: MaybePrincipal) -> Principal:
        return authorize(principal, access, season_id=season_id)

    return _stating(access, requirement)


def _with_rows(access: Access) -> Requirement:
    async def requirement(principal: MaybePrincipal) -> Principal:
        if principal is None:
            raise Unauthorized(f"a token of {access.value} is required")
        return principal

    return _stating(access, requirement)


# what each rule reads from the path: nothing, its event, its event and entry, or its season
_BY_PATH: dict[Access, Requirement] = {
    Access.ADMIN: _anywhere(Access.ADMIN),
    Access.ANY_ORGANIZER: _anywhere(Access.ANY_ORGANIZER),
    Access.METRICS: _anywhere(Access.METRICS),
    Access.ORGANIZER: _in_event(Access.ORGANIZER),
    Access.ORGANIZER_OR_EVENT_ENTRY: _in_event(Access.ORGANIZER_OR_EVENT_ENTRY),
    Access.ORGANIZER_OR_OWN_ENTRY: _for_entry(Access.ORGANIZER_OR_OWN_ENTRY),
    Access.RESULTS: _in_event(Access.RESULTS),
    Access.JUDGE: _in_event(Access.JUDGE),
    Access.JUDGE_OR_OWN_ENTRY: _for_entry(Access.JUDGE_OR_OWN_ENTRY),
    Access.SEASON: _in_season(Access.SEASON),
}
# a route on a match (``/v1/matches/{match_id}…``): its event and seats are the rows its service
# locks, and the service decides with them; the dependency requires a token
_BY_ROWS: dict[Access, Requirement] = {a: _with_rows(a) for a in Access}


def require(access: Access, *, rows: bool = False) -> Requirement:
    """The dependency that lets a route run only for a principal ``access`` admits (401 without a
    token, 403 with the wrong one). With ``rows``, the rule needs what the service loads (a match's
    event and seats): the dependency requires a token and the service calls ``authorize``."""
    if rows or access is Access.ORGANIZER_OR_SEATED:
        return _BY_ROWS[access]
    return _BY_PATH[access]


Admin = Annotated[Principal, Depends(require(Access.ADMIN))]
AnyOrganizer = Annotated[Principal, Depends(require(Access.ANY_ORGANIZER))]
Organizer = Annotated[Principal, Depends(require(Access.ORGANIZER))]
EventMember = Annotated[Principal, Depends(require(Access.ORGANIZER_OR_EVENT_ENTRY))]
OrganizerOrOwnEntry = Annotated[Principal, Depends(require(Access.ORGANIZER_OR_OWN_ENTRY))]
Judge = Annotated[Principal, Depends(require(Access.JUDGE))]
JudgeOrOwnEntry = Annotated[Principal, Depends(require(Access.JUDGE_OR_OWN_ENTRY))]
Monitor = Annotated[Principal, Depends(require(Access.METRICS))]
SeasonOrganizer = Annotated[Principal, Depends(require(Access.SEASON))]
# routes on a match: a token is required, and the service checks it against the match's rows
SeatedOrOrganizer = Annotated[Principal, Depends(require(Access.ORGANIZER_OR_SEATED))]
ResultKeeper = Annotated[Principal, Depends(require(Access.RESULTS, rows=True))]
