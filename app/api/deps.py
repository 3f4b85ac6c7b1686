"""Shared dependencies: the request's session, its commit, and auth principals."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Request
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Forbidden, PreconditionFailed, PreconditionRequired, Unauthorized
from app.db.models import Entry, Event
from app.jobs import commit_and_dispatch, discard_pending


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    async with request.app.state.sessionmaker() as session:
        try:
            yield session
        finally:
            # Anything not committed by the handler is rolled back, and its jobs never leave.
            discard_pending(session)


SessionDep = Annotated[AsyncSession, Depends(get_session)]


async def commit(request: Request, session: AsyncSession) -> None:
    """Commit before the response is sent (so a failed commit never answers 2xx), then enqueue jobs."""
    await commit_and_dispatch(session, request.app.state.dispatcher)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Principal:
    """Who is calling: ``admin``, the ``organizer`` of one event, or one ``entry``."""

    kind: str
    event_id: str | None = None
    entry_id: str | None = None

    @property
    def scope(self) -> str:
        return f"{self.kind}:{self.event_id or ''}:{self.entry_id or ''}"


async def get_principal(
    request: Request, session: SessionDep, authorization: Annotated[str | None, Header()] = None
) -> Principal | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("the Authorization header must be 'Bearer <token>'")
    token = token.strip()
    admin = request.app.state.settings.arbiter_admin_token
    if admin and hmac.compare_digest(token, admin):
        return Principal("admin")
    digest = hash_token(token)
    event_id = (
        await session.execute(select(Event.id).where(Event.organizer_token_hash == digest))
    ).scalar_one_or_none()
    if event_id is not None:
        return Principal("organizer", event_id=event_id)
    row = (
        await session.execute(select(Entry.id, Entry.event_id).where(Entry.token_hash == digest))
    ).one_or_none()
    if row is not None:
        return Principal("entry", event_id=row.event_id, entry_id=row.id)
    raise Unauthorized("unknown token")


MaybePrincipal = Annotated[Principal | None, Depends(get_principal)]


def require_admin(principal: MaybePrincipal) -> Principal:
    if principal is None:
        raise Unauthorized("an admin token is required")
    if principal.kind != "admin":
        raise Forbidden("only the admin may do this")
    return principal


Admin = Annotated[Principal, Depends(require_admin)]


def require_any(principal: MaybePrincipal) -> Principal:
    if principal is None:
        raise Unauthorized("a token is required")
    return principal


AnyPrincipal = Annotated[Principal, Depends(require_any)]


def ensure_organizer(principal: Principal | None, event_id: str) -> Principal:
    """The admin, or the organizer of this very event; a token never reaches outside its event."""
    if principal is None:
        raise Unauthorized("the organizer token of this event is required")
    if principal.kind == "admin" or (principal.kind == "organizer" and principal.event_id == event_id):
        return principal
    raise Forbidden("this token does not organize this event")


def check_if_match(if_match: str | None, version: int) -> None:
    if if_match is None:
        raise PreconditionRequired("If-Match with the resource's current version is required")
    tag = if_match.strip().removeprefix("W/").strip('"')
    if tag != str(version):
        raise PreconditionFailed(f"version {tag} is stale; the current version is {version}")
