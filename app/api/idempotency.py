"""``Idempotency-Key`` on creating and reporting POSTs (api.md "Idempotency").

The key is *claimed* first: its row is inserted at the start of the request's transaction, before
the handler takes any lock, and the first answer is written into that row in the same transaction
(committed by the request boundary). A concurrent copy of the request blocks on the claim (Postgres
waits on the uncommitted row; SQLite serializes transactions) and, once the first commits, finds the
row and replays the answer — it never runs the handler against the committed state. Should the first
copy fail or be abandoned before its commit, its claim rolls back with it and the next copy runs.

Nothing at rest is usable without the server's key: the row is found by an HMAC of the client's key
and the caller's scope (its token's principal and the route) under the answers' key — 32 random
bytes of the database's own, kept sealed under the server's key (app/services/keyring.py) — and the
answer, which may carry a new ``organizer_token`` or ``entry_token``, is sealed with AES-GCM under
an independent derivation. A dump of the database, with every public value and a guess of every
client key beside it, yields neither the keys nor the answers. A key is kept for
``ARBITER_RETAIN_IDEMPOTENCY_HOURS`` (24 by default): an older one no longer replays, and the
periodic pruning deletes it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from fastapi import Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.caching import json_body_in_turns
from app.core.access import Principal
from app.core.errors import Conflict, InvalidInput, Problem
from app.db.base import utcnow
from app.db.models import IdempotencyKey
from app.jobs import discard_pending
from app.services.keyring import keyring_of

# The operations that accept an Idempotency-Key (api.md "Idempotency"); the OpenAPI document declares
# the header on them, and run_idempotent refuses to serve any other.
IDEMPOTENT = frozenset(
    {
        "create_player",
        "create_game",
        "create_event",
        "create_entry",
        "create_entries_csv",
        "create_round",
        "report_result",
        "confirm_result",
        "append_match_log",
    }
)

Handler = Callable[[], Awaitable[tuple[int, Any, dict[str, str]]]]

MAX_KEY_LENGTH = 200
HEADER = "Idempotency-Key"


class _Keys:
    """What one client key derives under the answers' key: the row's id, the answer's cipher key,
    the body's fingerprint."""

    def __init__(self, answers_key: bytes, scope: str, key: str) -> None:
        material = f"{scope}\0{key}".encode()
        self.row_id = hmac.new(
            answers_key, b"arbiter idempotency row\0" + material, hashlib.sha256
        ).hexdigest()
        self.cipher_key = hmac.new(
            answers_key, b"arbiter idempotency seal\0" + material, hashlib.sha256
        ).digest()

    def fingerprint(self, body: Any) -> str:
        data = json.dumps(jsonable_encoder(body), sort_keys=True).encode()
        return hmac.new(self.cipher_key, data, hashlib.sha256).hexdigest()

    def seal(self, status: int, payload: Any, headers: dict[str, str]) -> bytes:
        plain = json.dumps({"status": status, "body": payload, "headers": headers}).encode()
        nonce = os.urandom(12)
        return nonce + AESGCM(self.cipher_key).encrypt(nonce, plain, self.row_id.encode())

    def open(self, sealed: bytes) -> dict[str, Any]:
        try:
            plain = AESGCM(self.cipher_key).decrypt(sealed[:12], sealed[12:], self.row_id.encode())
        except InvalidTag:  # cannot happen for a row found by this key's hash; never a 500
            raise Conflict("the stored answer for this Idempotency-Key cannot be read") from None
        answer: dict[str, Any] = json.loads(plain)
        return answer


def check_key(key: str) -> None:
    """A key is 1–200 printable ASCII characters (422 naming the header otherwise)."""
    if len(key) > MAX_KEY_LENGTH or not all(" " <= c <= "~" for c in key):
        raise InvalidInput(
            f"{HEADER} must be 1 to {MAX_KEY_LENGTH} printable ASCII characters",
            [Problem(("header", HEADER), f"at most {MAX_KEY_LENGTH} printable ASCII characters")],
        )


def _retention(request: Request) -> timedelta | None:
    hours = float(request.app.state.settings.arbiter_retain_idempotency_hours)
    return timedelta(hours=hours) if hours > 0 else None


async def _stored(
    session: AsyncSession, keys: _Keys, digest: str, retention: timedelta | None
) -> JSONResponse | None:
    """The replay of a committed answer, or None when the key is new (or expired, then forgotten)."""
    row = await session.get(IdempotencyKey, keys.row_id, populate_existing=True)
    if row is None:
        return None
    if retention is not None and row.created_at < utcnow() - retention:
        await session.delete(row)
        await session.flush()
        return None
    if row.request_hash != digest:
        raise Conflict(f"this {HEADER} was already used with a different request body")
    if row.sealed is None:  # only this transaction's own claim can look like this
        return None
    answer = keys.open(row.sealed)
    headers = dict(answer.get("headers") or {})
    headers["Idempotent-Replayed"] = "true"
    return JSONResponse(answer["body"], status_code=int(answer["status"]), headers=headers)


async def run_idempotent(
    request: Request,
    session: AsyncSession,
    principal: Principal | None,
    body: Any,
    handler: Handler,
) -> Response:
    """Run ``handler`` (which changes the session; the request boundary commits) at most once per key."""
    route = request.scope.get("route")
    if getattr(route, "operation_id", None) not in IDEMPOTENT:
        raise RuntimeError(f"{getattr(route, 'operation_id', None)} is not declared in IDEMPOTENT")
    key = request.headers.get(HEADER)
    if not key:
        status, payload, headers = await handler()
        return _answer(status, await json_body_in_turns(payload), headers)
    check_key(key)
    scope = f"{principal.scope if principal else 'anonymous'}|{request.method} {request.url.path}"
    keys = _Keys(keyring_of(session).answers_key, scope, key)
    digest = keys.fingerprint(body)
    retention = _retention(request)
    replay = await _stored(session, keys, digest, retention)
    if replay is not None:
        return replay
    # Claim the key before anything else: a concurrent copy waits here until this one commits.
    claim = IdempotencyKey(key_hash=keys.row_id, request_hash=digest, sealed=None)
    session.add(claim)
    try:
        await session.flush()
    except IntegrityError:
        await session.rollback()
        discard_pending(session)
        replay = await _stored(session, keys, digest, retention)
        if replay is None:
            raise Conflict(f"a request with this {HEADER} is still running; retry it") from None
        return replay
    status, payload, headers = await handler()
    body = await json_body_in_turns(payload)
    claim.sealed = keys.seal(status, json.loads(body), headers)
    await session.flush()
    return _answer(status, body, headers)


def _answer(status: int, body: bytes, headers: dict[str, str]) -> Response:
    """The handler's answer, its JSON rendered once (``json_body_in_turns``)."""
    return Response(body, status_code=status, headers=headers, media_type="application/json")
