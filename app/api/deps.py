"""Shared dependencies: the request's session (and its one commit) and the caller's principal.

The request boundary owns the transaction: ``get_session`` commits once the route has returned
and its answer is built — before a byte of the response is sent (``scope="function"``), so a failed
commit answers an error, never a 2xx — then hands the jobs created in it to the queue. A route that
raises changes nothing. Routes and services never commit.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Header, Request
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from app.api import limits
from app.core.access import Principal
from app.core.errors import Unauthorized
from app.db.session import read_only
from app.jobs import commit_and_dispatch, discard_pending
from app.services import tokens

# Requests that only read: their transaction takes no write lock on SQLite (app/db/session.py).
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    reads = request.method in READ_METHODS
    gate: asyncio.Lock | None = getattr(request.app.state, "write_gate", None)
    async with contextlib.AsyncExitStack() as stack:
        if gate is not None and not reads:
            # SQLite: one writing transaction at a time; wait for the turn here, in order, rather
            # than in SQLite's busy handler, which sleeps up to 100 ms between tries
            await stack.enter_async_context(gate)
        session = await stack.enter_async_context(request.app.state.sessionmaker())
        if reads:
            await read_only(session)
        try:
            yield session
        except BaseException:
            discard_pending(session)  # the change is rolled back, and its jobs never leave
            raise
        await commit_and_dispatch(session, request.app.state.dispatcher)


SessionDep = Annotated[AsyncSession, Depends(get_session, scope="function")]


PRINCIPAL_STATE = "arbiter_principal"


def parse_bearer(authorization: str) -> str:
    """The token of ``Bearer <token>``; anything else — another scheme, no token, characters outside
    printable ASCII (RFC 6750's token68 and then some) — is a 401, never a 500."""
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise Unauthorized("the Authorization header must be 'Bearer <token>'")
    if len(token) > 512 or not all("!" <= c <= "~" for c in token):
        raise Unauthorized("the bearer token must be printable ASCII without spaces")
    return token


async def resolve_principal(
    request: Request, session: AsyncSession | AsyncConnection, authorization: str
) -> Principal:
    """The principal a bearer token speaks for; a malformed or unknown token is a 401."""
    return await principal_of_token(request, session, parse_bearer(authorization))


async def principal_of_token(
    request: Request, session: AsyncSession | AsyncConnection, token: str
) -> Principal:
    """The principal a token speaks for (the bearer header's, or the console's sign-in); unknown: 401.
    A client past its allowance of unknown tokens is a 429 before its token is looked at, a good
    one too: else a guess that hit would still tell itself apart (app/api/limits.py)."""
    settings = request.app.state.settings
    await limits.before_token(request.app, request.scope)
    try:
        return await tokens.principal_of_token(
            session,
            token,
            admin_token=settings.arbiter_admin_token,
            metrics_token=settings.arbiter_metrics_token,
        )
    except Unauthorized:
        await limits.token_failed(request.app, request.scope)
        raise


async def get_principal(
    request: Request, session: SessionDep, authorization: Annotated[str | None, Header()] = None
) -> Principal | None:
    """The principal of the bearer token (None without one); a malformed or unknown token is a 401.
    The request guard (app/api/guard.py) may have resolved it already, before reading the body."""
    if not authorization:
        return None
    cached = request.scope.get("state", {}).get(PRINCIPAL_STATE)
    if isinstance(cached, Principal):
        return cached
    return await resolve_principal(request, session, authorization)


MaybePrincipal = Annotated[Principal | None, Depends(get_principal)]
