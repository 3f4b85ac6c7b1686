"""A season announces its changes (api.md "Live updates", "Webhooks", "Seasons"), on Postgres and on
the SQLite default: a webhook of every event, a real receiver, gets a signed ``season.updated`` when
an event is attached and when that event finishes — not for an event of no season; the season's
stream, read by a real SSE client over TCP, sends it and resumes with ``Last-Event-ID``; a correction
of the finished event and a detach are announced, an event's own webhook cannot ask for them, and an
unknown season has no stream."""

from __future__ import annotations

from typing import Any

import standardwebhooks

from app.services import outbox
from tests.support.api import Api, advance, assert_problem, bearer, report, setup_event, start
from tests.support.live import receiver, serving, sse

PLAYERS = ["Ada", "Bea", "Cy", "Di"]


async def _running(api: Api) -> tuple[str, str, dict[str, Any]]:
    """A one-table event of the four players, started: its id, the organizer's token, its table."""
    event_id, org, _ = await setup_event(
        api, PLAYERS, settings={"stages": [{"format": "free_for_all"}], "scoring": {"scheme": "placement"}}
    )
    return event_id, org, (await start(api, event_id, org))["round"]["matches"][0]


async def _finish(api: Api, event_id: str, org: str, table: dict[str, Any]) -> dict[str, Any]:
    played = await report(api, org, table, [1, 2, 3, 4])
    assert (await advance(api, event_id, org))["event"]["status"] == "finished"
    return played


async def _season(api: Api) -> tuple[str, str]:
    r = await api.client.post(
        "/v1/seasons", json={"name": "Winter league", "points": [25, 18, 15, 12]}, headers=api.admin()
    )
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["organizer_token"]


async def _attach(api: Api, season_id: str, token: str, event_id: str) -> None:
    r = await api.client.post(
        f"/v1/seasons/{season_id}/events", json={"event_id": event_id}, headers=bearer(token)
    )
    assert r.status_code == 200, r.text


async def _season_rows(api: Api, season_id: str) -> list[dict[str, Any]]:
    async with api.app.state.sessionmaker() as s:
        rows = await outbox.since(s, season_id, 0)
        await s.commit()
    return [outbox.envelope(r) for r in rows]


async def test_a_webhook_of_every_event_hears_the_season_change(api: Api) -> None:
    async with receiver() as rec:
        r = await api.client.post(
            "/v1/webhooks", json={"url": rec.url, "events": ["season.updated"]}, headers=api.admin()
        )
        assert r.status_code == 201, r.text
        secret = r.json()["secret"]
        season_id, token = await _season(api)
        event_id, org, table = await _running(api)
        await _attach(api, season_id, token, event_id)
        await _attach(api, season_id, token, event_id)  # again: no change, nothing announced
        other, other_org, other_table = await _running(api)  # in no season
        await _finish(api, other, other_org, other_table)
        played = await _finish(api, event_id, org, table)

        got = await rec.wait_for(2, within=5.0)
        await api.drain_jobs()
        assert len(rec.received) == 2  # nothing for the other event, nor for the attach made twice
        bodies = sorted((d.json for d in got), key=lambda b: b["id"])
        assert [b["data"] for b in bodies] == [
            {"season_id": season_id, "reason": reason, "event_id": event_id}
            for reason in ("attached", "event_finished")
        ]
        for delivery, body in zip(got, (d.json for d in got), strict=True):
            assert body["type"] == "season.updated" and body["season_id"] == season_id
            assert "event_id" not in body  # a season's envelope names the season
            assert delivery.headers["webhook-id"] == str(body["id"])
            standardwebhooks.Webhook(secret).verify(delivery.body, delivery.headers)

    # a correction of the finished event changes its final standings: its season hears of it once
    r = await api.client.put(
        f"/v1/matches/{played['id']}/result",
        json={
            "seats": [
                {"entry_id": s["entry_id"], "place": p}
                for s, p in zip(played["seats"], [2, 1, 3, 4], strict=True)
            ]
        },
        headers={**bearer(org), "If-Match": str(played["version"])},
    )
    assert r.status_code == 200, r.text
    r = await api.client.delete(f"/v1/seasons/{season_id}/events/{event_id}", headers=bearer(token))
    assert r.status_code == 200, r.text
    rows = await _season_rows(api, season_id)
    assert [r["data"]["reason"] for r in rows] == [
        "attached",
        "event_finished",
        "standings_changed",
        "detached",
    ]
    assert [r["id"] for r in rows] == sorted(r["id"] for r in rows)

    # an event's own webhook is never sent a season's change: asking for one is refused, naming it
    r = await api.client.post(
        f"/v1/events/{event_id}/webhooks",
        json={"url": "http://127.0.0.1:9/hook", "events": ["match.confirmed", "season.updated"]},
        headers=bearer(org),
    )
    assert "season.updated" in str(assert_problem(r, 422)["errors"])


async def test_the_season_stream_sends_its_changes_and_resumes(api: Api) -> None:
    season_id, token = await _season(api)
    event_id, org, table = await _running(api)
    path = f"/v1/seasons/{season_id}/stream"
    assert_problem(await api.client.get("/v1/seasons/nope/stream"), 404)
    assert_problem(await api.client.get(path, headers={"Last-Event-ID": "x"}), 422)
    async with serving(api.app) as base:
        async with sse(base, season_id, path=path) as live:
            assert live.status == 200 and live.headers["content-type"].startswith("text/event-stream")
            await _attach(api, season_id, token, event_id)
            got = await live.next("season.updated")
            assert got.data["season_id"] == season_id and got.id == str(got.data["id"])
            assert got.data["data"] == {"season_id": season_id, "reason": "attached", "event_id": event_id}

        # while no stream is open the event finishes: resuming with Last-Event-ID brings it
        await _finish(api, event_id, org, table)
        async with sse(base, season_id, last_event_id=got.id, path=path) as again:
            missed = await again.next("season.updated")
            assert missed.data["data"]["reason"] == "event_finished" and int(missed.id or 0) > int(
                got.id or 0
            )
            assert [m.event for m in again.seen] == ["season.updated"]  # the season's changes only
