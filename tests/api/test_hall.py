"""What a hall sees beside pairings (api.md "Announcements", "The round clock"), on Postgres and on
the SQLite default: the organizer's announcements reach the stream and a webhook receiver; the
round clock is started, paused, resumed, extended (for the room or one table) and stopped by the
organizer or a judge, read from the server's time, and says once, by itself, when time is up."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from app.services import outbox
from tests.support.api import Api, assert_problem, bearer, setup_event, start
from tests.support.live import receiver


async def _changes(api: Api, event_id: str) -> list[dict[str, Any]]:
    async with api.app.state.sessionmaker() as s:
        rows = await outbox.since(s, event_id, 0, limit=10_000)
        await s.commit()
    return [outbox.envelope(r) for r in rows]


async def _running(api: Api, **settings: Any) -> tuple[str, str, dict[str, Any], dict[str, Any]]:
    event_id, org, entries = await setup_event(
        api, ["Ada", "Bea", "Cy", "Di"], settings={"stages": [{"format": "swiss", "rounds": 2}], **settings}
    )
    first = (await start(api, event_id, org))["round"]
    return event_id, org, entries, first


async def _staff(api: Api, event_id: str, org: str, role: str) -> str:
    r = await api.client.post(
        f"/v1/events/{event_id}/staff", json={"name": role.title(), "role": role}, headers=bearer(org)
    )
    assert r.status_code == 201, r.text
    token: str = r.json()["token"]
    return token


async def _clock(api: Api, event_id: str, token: str, **body: Any) -> Any:
    return await api.client.post(f"/v1/events/{event_id}/clock", json=body, headers=bearer(token))


async def test_announcements_reach_the_stream_and_a_receiver(api: Api) -> None:
    async with receiver() as rec:
        event_id, org, entries, _ = await _running(api)
        r = await api.client.post(
            f"/v1/events/{event_id}/webhooks",
            json={"url": rec.url, "events": ["announcement.posted"]},
            headers=bearer(org),
        )
        assert r.status_code == 201, r.text
        for text in ("Lunch break until 13:00", "Round 3 starts at 14:00"):
            r = await api.client.post(
                f"/v1/events/{event_id}/announcements", json={"text": text}, headers=bearer(org)
            )
            assert r.status_code == 201, r.text
            assert r.json()["text"] == text and r.json()["by"] == "organizer"
        listed = (await api.client.get(f"/v1/events/{event_id}/announcements")).json()["items"]
        assert [a["text"] for a in listed] == ["Round 3 starts at 14:00", "Lunch break until 13:00"]
        posted = [c for c in await _changes(api, event_id) if c["type"] == "announcement.posted"]
        assert [c["data"]["text"] for c in posted] == ["Lunch break until 13:00", "Round 3 starts at 14:00"]
        got = await rec.wait_for(2, within=5.0)
        assert sorted(d.json["data"]["text"] for d in got) == sorted(a["text"] for a in listed)

    # refused: nothing posted, the field or the permission named
    judge = await _staff(api, event_id, org, "judge")
    for token, status in ((entries["Ada"]["entry_token"], 403), (judge, 403)):
        r = await api.client.post(
            f"/v1/events/{event_id}/announcements", json={"text": "mine"}, headers=bearer(token)
        )
        assert_problem(r, status)
    for body in ({"text": ""}, {"text": "x" * 501}, {"text": "\u200b"}, {}):
        r = await api.client.post(f"/v1/events/{event_id}/announcements", json=body, headers=bearer(org))
        assert "text" in str(assert_problem(r, 422)["errors"])
    assert len((await api.client.get(f"/v1/events/{event_id}/announcements")).json()["items"]) == 2
    assert_problem(await api.client.get("/v1/events/nope/announcements"), 404)


async def test_the_clock_from_start_to_stop(api: Api) -> None:
    event_id, org, _, first = await _running(api, game_minutes=15)
    idle = (await api.client.get(f"/v1/events/{event_id}/clock")).json()
    assert idle["state"] == "idle" and idle["remaining_s"] == 0 and idle["ends_at"] is None

    # the event's game_minutes is the default length
    r = await _clock(api, event_id, org, action="start")
    assert r.status_code == 200, r.text
    c = r.json()
    assert c["state"] == "running" and c["round"] == 1 and c["duration_s"] == 900
    ends = datetime.fromisoformat(c["ends_at"])
    assert abs((ends - datetime.fromisoformat(c["server_time"])).total_seconds() - 900) < 1
    assert 899 <= c["remaining_s"] <= 900

    # pause: the time left stands still
    paused = (await _clock(api, event_id, org, action="pause")).json()
    assert paused["state"] == "paused" and paused["ends_at"] is None
    await asyncio.sleep(0.3)
    again = (await api.client.get(f"/v1/events/{event_id}/clock")).json()
    assert again["remaining_s"] == paused["remaining_s"]
    assert_problem(await _clock(api, event_id, org, action="pause"), 409)

    extended = (await _clock(api, event_id, org, action="extend", seconds=120)).json()
    assert extended["remaining_s"] == paused["remaining_s"] + 120 and extended["duration_s"] == 1020
    resumed = (await _clock(api, event_id, org, action="resume")).json()
    assert resumed["state"] == "running" and abs(resumed["remaining_s"] - extended["remaining_s"]) < 1

    # one table's extra time (a late start)
    match_id = first["matches"][0]["id"]
    t = (await _clock(api, event_id, org, action="extend", seconds=300, match_id=match_id)).json()
    table_end = datetime.fromisoformat(t["tables"][match_id])
    assert abs((table_end - datetime.fromisoformat(t["ends_at"])).total_seconds() - 300) < 0.01
    assert "match_id" in str(
        assert_problem(await _clock(api, event_id, org, action="extend", seconds=5, match_id="nope"), 422)
    )

    stopped = (await _clock(api, event_id, org, action="stop")).json()
    assert stopped["state"] == "ended" and stopped["remaining_s"] == 0 and stopped["tables"] == {}
    assert_problem(await _clock(api, event_id, org, action="resume"), 409)

    kinds = [c["type"] for c in await _changes(api, event_id) if c["type"].startswith("clock.")]
    assert kinds == [
        "clock.started",
        "clock.paused",
        "clock.extended",
        "clock.resumed",
        "clock.extended",
        "clock.stopped",
    ]


async def test_who_may_run_the_clock_and_bad_input(api: Api) -> None:
    event_id, org, entries, _ = await _running(api)
    # no game_minutes: start needs seconds, and says so
    problem = assert_problem(await _clock(api, event_id, org, action="start"), 422)
    assert "seconds" in str(problem["errors"])
    for body in ({"action": "start", "seconds": 0}, {"action": "start", "seconds": "60"}, {"action": "wind"}):
        assert_problem(await _clock(api, event_id, org, **body), 422)
    keeper = await _staff(api, event_id, org, "scorekeeper")
    judge = await _staff(api, event_id, org, "judge")
    assert (
        "scorekeeper"
        in assert_problem(await _clock(api, event_id, keeper, action="start", seconds=60), 403)["detail"]
    )
    assert_problem(
        await _clock(api, event_id, entries["Ada"]["entry_token"], action="start", seconds=60), 403
    )
    assert (await api.client.get(f"/v1/events/{event_id}/clock")).json()["state"] == "idle"
    r = await _clock(api, event_id, judge, action="start", seconds=600)
    assert r.status_code == 200 and r.json()["state"] == "running"
    started = [c for c in await _changes(api, event_id) if c["type"] == "clock.started"]
    assert started[0]["data"]["by"].startswith("staff:")
    assert_problem(await _clock(api, event_id, org, action="start", seconds=60), 409)  # stop it first


async def test_time_is_up_by_itself_once(api: Api) -> None:
    event_id, org, _, _ = await _running(api)
    r = await _clock(api, event_id, org, action="start", seconds=1)
    assert r.status_code == 200
    for _ in range(100):  # the server says so within a second or two, without being asked
        kinds = [c["type"] for c in await _changes(api, event_id) if c["type"].startswith("clock.")]
        if "clock.ended" in kinds:
            break
        await asyncio.sleep(0.05)
    assert kinds == ["clock.started", "clock.ended"]
    ended = (await api.client.get(f"/v1/events/{event_id}/clock")).json()
    assert ended["state"] == "ended" and ended["remaining_s"] == 0
    await asyncio.sleep(1.2)  # and only once
    kinds = [c["type"] for c in await _changes(api, event_id) if c["type"].startswith("clock.")]
    assert kinds == ["clock.started", "clock.ended"]
    # started again for the next round
    assert (await _clock(api, event_id, org, action="start", seconds=60)).json()["state"] == "running"
