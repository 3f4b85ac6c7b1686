"""Cross-origin calls as a browser makes them (docs/api.md "CORS"): a listed origin may do anything;
with `*`, any other origin's script reads the public, token-less reads — standings, a leaderboard, a
season, an event — and nothing that carries a token, preflight included."""

from __future__ import annotations

from typing import Any

from tests.api.test_edge import client, settings, started
from tests.support.api import ADMIN_TOKEN, bearer

LEAGUE = "https://league.example"
FRONT = "https://front.example"


def _allowed(r: Any) -> str | None:
    return r.headers.get("access-control-allow-origin")


async def test_any_origin_reads_the_public_answers_and_no_token_crosses(backend_url: str) -> None:
    s = settings(backend_url, arbiter_cors_origins=f"{FRONT}, *")
    async with started(s) as app, client(app) as c:
        made = await c.post(
            "/v1/events",
            json={"name": "League night", "game": "generic"},
            headers={**bearer(ADMIN_TOKEN), "Origin": FRONT},
        )
        assert made.status_code == 201 and _allowed(made) == FRONT  # the listed front end: anything
        event_id, organizer = made.json()["id"], made.json()["organizer_token"]
        league = {"Origin": LEAGUE}

        # the public reads: readable from any origin, their tag exposed for a 304 next time
        for path in (
            f"/v1/events/{event_id}",
            f"/v1/events/{event_id}/standings",
            "/v1/ratings",
            "/v1/events",
        ):
            r = await c.get(path, headers=league)
            assert r.status_code == 200, (path, r.text)
            assert _allowed(r) == "*", path
            assert "ETag" in r.headers["access-control-expose-headers"]
            assert "Origin" in r.headers["vary"]
        standings = await c.get(f"/v1/events/{event_id}/standings", headers=league)
        again = await c.get(
            f"/v1/events/{event_id}/standings", headers={**league, "If-None-Match": standings.headers["etag"]}
        )
        assert again.status_code == 304 and _allowed(again) == "*"

        # a preflight for a public read with its cache tag: allowed
        ok = await c.options(
            f"/v1/events/{event_id}/standings",
            headers={
                **league,
                "Access-Control-Request-Method": "GET",
                "Access-Control-Request-Headers": "if-none-match",
            },
        )
        assert ok.status_code == 200 and _allowed(ok) == "*"
        assert ok.headers["access-control-allow-methods"] == "GET, HEAD"

        # a token from an origin not listed: the preflight is refused, and an answer is not shared
        for method, asked in (("GET", "authorization"), ("POST", "content-type"), ("DELETE", "")):
            pre = await c.options(
                f"/v1/events/{event_id}/entries",
                headers={
                    **league,
                    "Access-Control-Request-Method": method,
                    **({"Access-Control-Request-Headers": asked} if asked else {}),
                },
            )
            assert pre.status_code == 400 and _allowed(pre) is None, (method, pre.text)
            assert (method in pre.text) or (asked in pre.text)
        staff = await c.get(f"/v1/events/{event_id}/staff", headers={**league, **bearer(organizer)})
        assert staff.status_code == 200 and _allowed(staff) is None
        posted = await c.post(
            f"/v1/events/{event_id}/entries", json={"name": "Ada"}, headers={**league, **bearer(organizer)}
        )
        assert posted.status_code == 201 and _allowed(posted) is None
        # the listed front end's preflight for the same is answered in full
        pre = await c.options(
            f"/v1/events/{event_id}/entries",
            headers={
                "Origin": FRONT,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization, content-type",
            },
        )
        assert pre.status_code == 200 and _allowed(pre) == FRONT


async def test_without_the_star_only_listed_origins_read(sqlite_url: str) -> None:
    async with started(settings(sqlite_url, arbiter_cors_origins=FRONT)) as app, client(app) as c:
        r = await c.get("/v1/events", headers={"Origin": LEAGUE})
        assert r.status_code == 200 and _allowed(r) is None
        pre = await c.options(
            "/v1/events", headers={"Origin": LEAGUE, "Access-Control-Request-Method": "GET"}
        )
        assert pre.status_code == 400 and _allowed(pre) is None
        r = await c.get("/v1/events", headers={"Origin": FRONT})
        assert _allowed(r) == FRONT
