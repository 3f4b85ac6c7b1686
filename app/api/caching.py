"""ETags and Cache-Control on the reads clients poll (api.md "Caching").

The ETag is strong and made from the body itself (a hash of the JSON sent), so it is right whatever
changed the answer; ``If-None-Match`` naming it answers 304 with no body. A read that carries a
resource's ``version`` (a match) prefixes the tag with it, ``"<version>-<hash>"``, so the tag a
client read is also an ``If-Match`` for a change (``app/core/concurrency.py`` reads the version).
Public reads say ``Cache-Control: public, no-cache``: a cache may keep them but must ask again
(cheap, with the tag); a read made with a token says ``private, no-cache``, since a token may see
more (a sealed pack).

An answer the API keeps (``Rendered``: a cached standings table, a cached round) is sent gzipped to
a client whose ``Accept-Encoding`` takes gzip, compressed once and kept beside it; its tag is the
JSON's with ``-gzip`` added (a representation of its own), and either tag answers 304.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse
from pydantic import BaseModel, RootModel

from app.services.offload import TURN

# The lists answered through app/api/csv_io.py ``list_answer``: JSON or CSV, each with its ETag; the
# OpenAPI document declares their CSV and its ``Link`` to the rest.
CSV_LISTS = frozenset(
    {
        "list_events",
        "list_announcements",
        "list_entries",
        "get_event_history",
        "list_staff",
        "list_event_webhooks",
        "list_event_webhook_deliveries",
        "list_games",
        "list_players",
        "get_player_ratings",
        "list_presets",
        "list_webhooks",
        "list_webhook_deliveries",
        "list_seasons",
    }
)
# The operations answered through cached(): the OpenAPI document declares If-None-Match, ETag,
# Cache-Control and 304 on them.
ETAGGED = frozenset(
    {
        "get_standings",
        "list_rounds",
        "get_round",
        "get_leaderboard",
        "list_rating_pools",
        "get_season_standings",
        "get_match",
        "get_places",
        "get_crosstable",
        "get_scorecard",
        "get_scorecards",
        # every list, as JSON and as CSV (app/api/csv_io.py list_answer)
        *CSV_LISTS,
    }
)


def _matches(if_none_match: str, tag: str) -> bool:
    if if_none_match.strip() == "*":
        return True
    return any(t.strip().removeprefix("W/") == tag for t in if_none_match.split(","))


def json_body(payload: Any) -> bytes:
    """An answer rendered as JSON: a response model renders itself in one pass (pydantic's
    serializer, as the standings cache's renderings are made), anything else as ``JSONResponse``
    renders it."""
    if isinstance(payload, BaseModel):
        return payload.model_dump_json().encode()
    return bytes(JSONResponse(jsonable_encoder(payload)).body)


async def json_body_in_turns(payload: Any) -> bytes:
    """``json_body``, a long list (a ``RootModel`` of more than ``in_turns``' worth of items: the
    5,000 entries a registration answers) rendered a slice at a time, the event loop given a turn
    to other requests between two slices; the bytes are the same."""
    root = getattr(payload, "root", None)
    if not isinstance(payload, RootModel) or not isinstance(root, list) or len(root) <= TURN:
        return json_body(payload)
    parts: list[bytes] = []
    for lo in range(0, len(root), TURN):
        parts.append(type(payload)(root[lo : lo + TURN]).model_dump_json().encode()[1:-1])
        await asyncio.sleep(0)
    return b"[" + b",".join(parts) + b"]"


GZIP_FROM = 1024  # bytes: a kept answer at least this long is sent gzipped to a client that takes it
GZIP_LEVEL = 6


def _digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()[:32]


@dataclass(eq=False)
class Rendered:
    """An answer kept rendered: its JSON, the digest its tag is made of, and its gzip (made the
    first time a client takes it, then kept)."""

    body: bytes
    digest: str = field(init=False)
    _gzipped: bytes | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.digest = _digest(self.body)

    def gzipped(self) -> bytes:
        if self._gzipped is None:
            self._gzipped = gzip.compress(self.body, GZIP_LEVEL, mtime=0)
        return self._gzipped


def rendered(content: Any) -> Rendered:
    """``content`` rendered as JSON, to keep."""
    return Rendered(json_body(content))


def takes_gzip(request: Request) -> bool:
    """Whether the request's ``Accept-Encoding`` takes gzip (``gzip`` or ``*``, not at ``q=0``)."""
    accepted = request.headers.get("accept-encoding")
    if not accepted:
        return False
    for part in accepted.split(","):
        coding, _, params = part.partition(";")
        if coding.strip().lower() not in ("gzip", "x-gzip", "*"):
            continue
        q = params.strip().removeprefix("q=").removeprefix("Q=").strip()
        try:
            return not q or float(q) > 0
        except ValueError:
            return False
    return False


def cached(request: Request, content: Any, *, version: int | None = None) -> Response:
    """``content`` as JSON with its ETag and Cache-Control; 304 when ``If-None-Match`` names the tag."""
    return cached_json(request, json_body(content), version=version)


def cached_json(
    request: Request,
    body: bytes | Rendered,
    *,
    version: int | None = None,
    media_type: str = "application/json",
    headers: dict[str, str] | None = None,
) -> Response:
    """A JSON body already rendered (a kept one: ``Rendered``, sent gzipped to a client that takes
    it), answered as ``cached`` answers; or another rendering of the same read (its CSV,
    ``media_type``), tagged by its own bytes."""
    route = request.scope.get("route")
    if getattr(route, "operation_id", None) not in ETAGGED:
        raise RuntimeError(f"{getattr(route, 'operation_id', None)} is not declared in ETAGGED")
    kept = body if isinstance(body, Rendered) else None
    raw = kept.body if kept is not None else body
    assert isinstance(raw, bytes)
    digest = kept.digest if kept is not None else _digest(raw)
    tag = f'"{version}-{digest}"' if version is not None else f'"{digest}"'
    compress = kept is not None and len(raw) >= GZIP_FROM
    zipped = compress and takes_gzip(request)
    headers = {
        **(headers or {}),
        "ETag": f'{tag[:-1]}-gzip"' if zipped else tag,
        "Cache-Control": "private, no-cache" if request.headers.get("authorization") else "public, no-cache",
        "Vary": "Authorization, Accept, Accept-Encoding" if compress else "Authorization, Accept",
    }
    inm = request.headers.get("if-none-match")
    if inm is not None and (_matches(inm, tag) or compress and _matches(inm, f'{tag[:-1]}-gzip"')):
        return Response(status_code=304, headers=headers)
    if zipped:
        assert kept is not None
        headers["Content-Encoding"] = "gzip"
        return Response(kept.gzipped(), media_type=media_type, headers=headers)
    return Response(raw, media_type=media_type, headers=headers)
