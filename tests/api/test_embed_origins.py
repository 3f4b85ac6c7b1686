"""Who may frame the embeds (docs/web.md "Embeds", ``ARBITER_EMBED_ORIGINS``): with a list of
origins, every embed names exactly those sites in its ``frame-ancestors`` (a browser then refuses to
draw it inside any other site's page), the pages that act with a token stay unframed, and a value that
is no origin is refused when the server starts, by name."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tests.api.test_edge import client, settings, started
from tests.support.api import ADMIN_TOKEN, bearer

CLUB = "https://club.example"
LEAGUE = "https://league.example:8443"


async def test_only_the_listed_sites_may_frame_the_embeds(sqlite_url: str) -> None:
    s = settings(sqlite_url, arbiter_embed_origins=f"{CLUB}, {LEAGUE}")
    async with started(s) as app, client(app) as c:
        made = await c.post(
            "/v1/events", json={"name": "Club night", "game": "generic"}, headers=bearer(ADMIN_TOKEN)
        )
        assert made.status_code == 201, made.text
        event_id = made.json()["id"]
        season = await c.post(
            "/v1/seasons", json={"name": "Club league", "points": [3, 1]}, headers=bearer(ADMIN_TOKEN)
        )
        assert season.status_code == 201, season.text
        for path in (
            f"/embed/e/{event_id}/standings",
            f"/embed/e/{event_id}/round",
            f"/embed/e/{event_id}/bracket",
            f"/embed/seasons/{season.json()['id']}",
        ):
            r = await c.get(path)
            assert r.status_code == 200, (path, r.text)
            policy = r.headers["content-security-policy"]
            assert policy.endswith(f"frame-ancestors {CLUB} {LEAGUE}"), (path, policy)
            assert "x-frame-options" not in r.headers
        # the pages that act with a token stay unframed whatever the list says
        for path in ("/console", f"/e/{event_id}/me", "/docs"):
            r = await c.get(path)
            assert "frame-ancestors 'none'" in r.headers["content-security-policy"], path
            assert r.headers["x-frame-options"] == "DENY", path


@pytest.mark.parametrize("value", ["club.example", "https://club.example/embeds", "ftp://club.example"])
def test_a_value_that_is_no_origin_is_refused_by_name(sqlite_url: str, value: str) -> None:
    with pytest.raises(ValidationError) as refused:
        settings(sqlite_url, arbiter_embed_origins=f"{CLUB},{value}")
    assert "arbiter_embed_origins" in str(refused.value) and "is not an origin" in str(refused.value)
