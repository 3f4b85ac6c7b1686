"""Ratings through the API on Postgres and SQLite: results inserted through the ORM (there is no
results endpoint yet), jobs run by the in-process dispatcher."""

from __future__ import annotations

import itertools
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.core.ratings import expectation
from app.db.models import Entry, Event, Match, Player, Round, Seat, Stage
from app.jobs import commit_and_dispatch
from app.services.ratings import enqueue_rating_update
from tests.support.api import Api, assert_problem

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
_clock = itertools.count()


@dataclass
class World:
    """An event seeded through the ORM, with a helper to confirm matches."""

    api: Api
    event_id: str
    round_id: str
    players: dict[str, str] = field(default_factory=dict)  # name -> player id
    entries: dict[str, str] = field(default_factory=dict)  # name -> entry id
    tables: itertools.count = field(default_factory=lambda: itertools.count(1))

    async def match(
        self,
        seats: list[tuple[str, int | None] | tuple[str, int | None, str]],
        outcome: str = "played",
        *,
        at: datetime | None = None,
        status: str = "confirmed",
    ) -> str:
        async with self.api.app.state.sessionmaker() as s:
            m = Match(
                event_id=self.event_id,
                round_id=self.round_id,
                table=next(self.tables),
                status=status,
                outcome=outcome,
                reported_at=at or T0 + timedelta(minutes=next(_clock)),
            )
            s.add(m)
            await s.flush()
            for i, seat in enumerate(seats):
                s.add(
                    Seat(
                        match_id=m.id,
                        entry_id=self.entries[seat[0]],
                        seat=i + 1,
                        place=seat[1],
                        character=seat[2] if len(seat) > 2 else None,  # type: ignore[misc]
                    )
                )
            await s.flush()
            await enqueue_rating_update(s, m.id)
            await commit_and_dispatch(s, self.api.app.state.dispatcher)
            return m.id


async def world(
    api: Api,
    names: list[str],
    *,
    game: str = "generic",
    settings: dict[str, Any] | None = None,
    preset: str | None = None,
    players: dict[str, str] | None = None,
) -> World:
    async with api.app.state.sessionmaker() as s:
        event = Event(
            name="Rated Open",
            game_key=game,
            preset=preset,
            settings={"rated": True, **(settings or {})},
            seed="seed-" + uuid.uuid4().hex,
            seed_commitment="0" * 64,
            status="running",
            organizer_token_hash=uuid.uuid4().hex,
        )
        s.add(event)
        await s.flush()
        stage = Stage(event_id=event.id, index=0, format="swiss")
        s.add(stage)
        await s.flush()
        rnd = Round(event_id=event.id, stage_id=stage.id, number=1)
        s.add(rnd)
        w = World(api, event.id, "")
        known = dict(players or {})
        for name in names:
            if name not in known:
                p = Player(name=name)
                s.add(p)
                await s.flush()
                known[name] = p.id
            e = Entry(event_id=event.id, player_id=known[name], name=name, token_hash=uuid.uuid4().hex)
            s.add(e)
            await s.flush()
            w.entries[name] = e.id
        await s.commit()
        w.round_id = rnd.id
        w.players = known
        return w


async def board(api: Api, pool: str, **params: Any) -> dict[str, Any]:
    r = await api.client.get(f"/v1/ratings/{pool}", params=params)
    assert r.status_code == 200, r.text
    return r.json()


async def test_leaderboard_history_and_titles(api: Api) -> None:
    w = await world(api, ["Ada", "Bob", "Cy"])
    m1 = await w.match([("Ada", 1), ("Bob", 2)])
    m2 = await w.match([("Cy", 1), ("Bob", 1)], outcome="draw")
    await w.match([("Ada", 2), ("Cy", 1)], outcome="forfeit")  # not rated by default
    await api.drain_jobs()

    data = await board(api, "generic")
    assert data["pool"] == "generic" and data["next_cursor"] is None
    rows = data["items"]
    assert [(r["rank"], r["name"], r["games"]) for r in rows] == [(1, "Ada", 1), (2, "Cy", 1), (3, "Bob", 2)]
    assert rows[0]["rating"] == 1516.0 and rows[0]["title"] == "novice"
    cy = 1500 + 32 * (0.5 - expectation(1500, 1484))
    assert rows[1]["rating"] == round(cy, 1)
    assert rows[2]["title"] is None  # below 1500

    r = await api.client.get(f"/v1/players/{w.players['Bob']}/ratings")
    assert r.status_code == 200, r.text
    (bob,) = r.json()["items"]
    assert bob["pool"] == "generic" and bob["games"] == 2
    assert [h["match_id"] for h in bob["history"]] == [m1, m2]
    assert bob["history"][0] == {
        "match_id": m1,
        "before": 1500.0,
        "after": 1484.0,
        "at": bob["history"][0]["at"],
    }
    assert bob["history"][1]["before"] == 1484.0

    assert_problem(await api.client.get("/v1/ratings/no-such-pool"), 404)
    assert_problem(await api.client.get("/v1/players/nobody/ratings"), 404)


async def test_leaderboard_pages_and_shared_ranks(api: Api) -> None:
    names = ["P1", "P2", "P3", "P4", "P5"]
    w = await world(api, names)
    await w.match([("P1", 1), ("P2", 2)])
    await w.match([("P3", 1), ("P4", 2)])  # P3 = P1 = 1516, P2 = P4 = 1484; P5 has not played
    await api.drain_jobs()
    # P5 is on the board only through a starting rating
    r = await api.client.put(
        f"/v1/players/{w.players['P5']}/ratings/generic", json={"rating": 1500}, headers=api.admin()
    )
    assert r.status_code == 200, r.text
    seen = []
    cursor = None
    for _ in range(5):
        params: dict[str, Any] = {"limit": 2}
        if cursor:
            params["cursor"] = cursor
        page = await board(api, "generic", **params)
        seen += [(r["rank"], r["rating"]) for r in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == [(1, 1516.0), (1, 1516.0), (3, 1500.0), (4, 1484.0), (4, 1484.0)]
    assert_problem(await api.client.get("/v1/ratings/generic", params={"cursor": "!!"}), 422)


async def test_starting_rating_is_used_and_recomputed(api: Api) -> None:
    w = await world(api, ["Ada", "Bob"])
    await w.match([("Ada", 1), ("Bob", 2)])
    await api.drain_jobs()
    url = f"/v1/players/{w.players['Bob']}/ratings/generic"
    assert_problem(await api.client.put(url, json={"rating": 1800}), 401)
    assert_problem(
        await api.client.put(
            f"/v1/players/{w.players['Bob']}/ratings/nope", json={"rating": 1800}, headers=api.admin()
        ),
        404,
    )
    r = await api.client.put(url, json={"rating": 1800}, headers=api.admin())
    assert r.status_code == 200, r.text
    assert r.json()["start_rating"] == 1800 and r.json()["job_id"]
    await api.drain_jobs()
    e = expectation(1500, 1800)
    rows = {r["name"]: r["rating"] for r in (await board(api, "generic"))["items"]}
    assert rows == {"Ada": round(1500 + 32 * (1 - e), 1), "Bob": round(1800 - 32 * (1 - e), 1)}
    job = (await api.client.get(f"/v1/jobs/{r.json()['job_id']}")).json()
    assert job["status"] == "done" and job["result"]["mode"] == "recompute"


async def test_recompute_202_with_job_and_same_state(api: Api) -> None:
    w = await world(api, ["A", "B", "C", "D"])
    for seats in ([("A", 1), ("B", 2)], [("C", 2), ("D", 1)], [("A", 1), ("D", 2)], [("B", 1), ("C", 1)]):
        await w.match(seats)  # type: ignore[arg-type]
    await w.match([("A", 1), ("B", 2), ("C", 3), ("D", 4)])  # a 4-seat table
    await api.drain_jobs()
    before = await board(api, "generic")
    hist_before = (await api.client.get(f"/v1/players/{w.players['A']}/ratings")).json()["items"]

    assert_problem(await api.client.post("/v1/ratings/generic/recompute"), 401)
    assert_problem(await api.client.post("/v1/ratings/nope/recompute", headers=api.admin()), 404)
    r = await api.client.post("/v1/ratings/generic/recompute", headers=api.admin())
    assert r.status_code == 202, r.text
    job_id = r.json()["job_id"]
    assert r.headers["location"] == f"/v1/jobs/{job_id}"
    await api.drain_jobs()
    job = (await api.client.get(f"/v1/jobs/{job_id}")).json()
    assert job["status"] == "done" and job["progress"] == 1.0
    assert job["result"] == {"pool": "generic", "mode": "recompute", "games": 5, "players": 4}
    assert await board(api, "generic") == before
    assert (await api.client.get(f"/v1/players/{w.players['A']}/ratings")).json()["items"] == hist_before


async def test_pool_settings_validated_and_applied(api: Api) -> None:
    w = await world(api, ["Ada", "Bob"], settings={"rating": {"k": 16}})
    await w.match([("Ada", 1), ("Bob", 2)])
    await api.drain_jobs()
    r = await api.client.get("/v1/ratings/generic/settings")
    assert r.status_code == 200, r.text
    assert r.json()["settings"]["k"] == 16  # seeded from the first event's rating settings
    assert (await board(api, "generic"))["items"][0]["rating"] == 1508.0

    bad = await api.client.put(
        "/v1/ratings/generic/settings",
        json={"k": [[10, 40], [5, 20]], "period": "month", "x": 1},
        headers=api.admin(),
    )
    body = assert_problem(bad, 422)
    assert len(body["errors"]) == 3
    # past what a pool's settings may hold: a 422 naming each, never a 500
    far = await api.client.put(
        "/v1/ratings/generic/settings", json={"start": 5e16, "max": 1e308}, headers=api.admin()
    )
    assert [e["loc"] for e in assert_problem(far, 422)["errors"]] == [["body", "start"], ["body", "max"]]
    assert_problem(await api.client.put("/v1/ratings/generic/settings", json={"k": 40}), 401)
    r = await api.client.put("/v1/ratings/generic/settings", json={"k": 40, "max": 2500}, headers=api.admin())
    assert r.status_code == 200, r.text
    assert r.json()["settings"]["k"] == 40 and r.json()["settings"]["max"] == 2500 and r.json()["job_id"]
    await api.drain_jobs()
    assert (await board(api, "generic"))["items"][0]["rating"] == 1520.0
    # a new pool may be configured before any event rates into it
    r = await api.client.put("/v1/ratings/league/settings", json={"period": "event"}, headers=api.admin())
    assert r.status_code == 200 and r.json()["job_id"] is None
    assert (await board(api, "league"))["items"] == []


async def test_per_character_pools_and_roll_call(api: Api) -> None:
    clash = await world(api, ["Ada", "Bob"], game="battlebooks", settings={"rating": {"per_character": True}})
    await clash.match([("Ada", 1, "Elf"), ("Bob", 2, "Orc")])
    roll = await world(
        api, ["Ada", "Bob"], game="battlebooks", preset="battlebooks-roll-call", players=clash.players
    )
    await roll.match([("Ada", 2, "Elf"), ("Bob", 1, "Elf")])
    await api.drain_jobs()
    overall = {r["name"]: r["rating"] for r in (await board(api, "battlebooks"))["items"]}
    assert overall == {"Ada": 1516.0, "Bob": 1484.0}  # the roll call never touches the overall pool
    elf = {r["name"]: (r["rating"], r["games"]) for r in (await board(api, "battlebooks:Elf"))["items"]}
    # Ada played the Elf twice: beat an Orc held at 1500 (+16), then lost a mirror to Bob's first Elf game
    e = expectation(1516, 1500)
    assert elf == {"Ada": (round(1516 - 32 * e, 1), 2), "Bob": (round(1500 + 32 * e, 1), 1)}
    orc = {r["name"]: r["rating"] for r in (await board(api, "battlebooks:Orc"))["items"]}
    assert orc == {"Bob": 1484.0}
    pools = [
        p["pool"]
        for p in (await api.client.get(f"/v1/players/{clash.players['Ada']}/ratings")).json()["items"]
    ]
    assert pools == ["battlebooks", "battlebooks:Elf"]


async def test_roll_call_counts_the_opponent_in_the_pool_of_the_hero_they_played(api: Api) -> None:
    # battlebooks.md "World rankings", the ruling on per-hero pools: "the opponent counts at their
    # rating in the pool of the hero *they* played in that game (their current rating there, 1500 if
    # new)"
    roll = await world(api, ["Ada", "Bob", "Cy"], game="battlebooks", preset="battlebooks-roll-call")
    first = await roll.match([("Ada", 1, "Elf"), ("Cy", 2, "Elf")])
    await roll.match([("Ada", 1, "Elf"), ("Bob", 2, "Orc")])
    await api.drain_jobs()

    async def pool(hero: str) -> dict[str, float]:
        return {r["name"]: r["rating"] for r in (await board(api, f"battlebooks:{hero}"))["items"]}

    ada = 1500 + 32 * 0.5  # the mirror: both at 1500
    e = expectation(ada, 1500)  # Bob's Orc rating is 1500 (new there)
    assert await pool("Elf") == {"Ada": round(ada + 32 * (1 - e), 1), "Cy": 1484.0}
    # Bob is measured against Ada's Elf rating (1516), not against a 1500 she never had as an Orc
    assert await pool("Orc") == {"Bob": round(1500 - 32 * (1 - e), 1)}
    assert (await pool("Orc"))["Bob"] != 1484.0
    # a correction of the mirror changes Ada's Elf rating before game 2, so Bob's Orc rating too:
    # the hero pools are rated together
    async with api.app.state.sessionmaker() as s:
        for seat in (await s.execute(Seat.__table__.select().where(Seat.match_id == first))).all():
            await s.execute(
                Seat.__table__.update()
                .where(Seat.id == seat.id)
                .values(place=1 if seat.entry_id == roll.entries["Cy"] else 2)
            )
        jobs = await enqueue_rating_update(s, first)
        assert {j.kind for j in jobs} == {"ratings_recompute"}
        await commit_and_dispatch(s, api.app.state.dispatcher)
    await api.drain_jobs()
    ada = 1500 - 32 * 0.5
    e = expectation(ada, 1500)
    assert await pool("Elf") == {"Ada": round(ada + 32 * (1 - e), 1), "Cy": 1516.0}
    assert await pool("Orc") == {"Bob": round(1500 - 32 * (1 - e), 1)}
    history = (await api.client.get(f"/v1/players/{roll.players['Bob']}/ratings")).json()["items"]
    assert [(h["pool"], len(h["history"])) for h in history] == [("battlebooks:Orc", 1)]


async def test_correction_of_an_older_match_recomputes(api: Api) -> None:
    w = await world(api, ["Ada", "Bob", "Cy"])
    m1 = await w.match([("Ada", 1), ("Bob", 2)])
    await w.match([("Bob", 1), ("Cy", 2)])
    await api.drain_jobs()
    # the organizer corrects the first game: Bob won it
    async with api.app.state.sessionmaker() as s:
        for seat in (await s.execute(Seat.__table__.select().where(Seat.match_id == m1))).all():
            await s.execute(
                Seat.__table__.update()
                .where(Seat.id == seat.id)
                .values(place=1 if seat.entry_id == w.entries["Bob"] else 2)
            )
        jobs = await enqueue_rating_update(s, m1)
        assert [j.kind for j in jobs] == ["ratings_recompute"]
        await commit_and_dispatch(s, api.app.state.dispatcher)
    # a late confirmation sorting before the mark is recomputed too
    late = await w.match([("Ada", 1), ("Cy", 2)], at=T0 - timedelta(days=1))
    await api.drain_jobs()
    r = (await api.client.get(f"/v1/players/{w.players['Ada']}/ratings")).json()["items"][0]
    assert [h["match_id"] for h in r["history"]] == [late, m1]
    assert r["history"][0] == {
        "match_id": late,
        "before": 1500.0,
        "after": 1516.0,
        "at": r["history"][0]["at"],
    }
    assert r["history"][1]["after"] == round(1516 - 32 * expectation(1516, 1500), 1)


async def test_unrated_events_and_unconfirmed_matches_do_not_rate(api: Api) -> None:
    w = await world(api, ["Ada", "Bob"], settings={"rated": False})
    await w.match([("Ada", 1), ("Bob", 2)])
    rated = await world(api, ["Ada", "Bob"], game="seasons", players=w.players)
    await rated.match([("Ada", 1), ("Bob", 2)], status="reported")
    await rated.match([("Ada", 1)], outcome="bye", status="bye")
    await api.drain_jobs()
    assert_problem(await api.client.get("/v1/ratings/generic"), 404)
    assert_problem(await api.client.get("/v1/ratings/seasons"), 404)


@pytest.mark.parametrize("period", ["event"])
async def test_period_event_pool(api: Api, period: str) -> None:
    r = await api.client.put("/v1/ratings/generic/settings", json={"period": period}, headers=api.admin())
    assert r.status_code == 200
    w = await world(api, ["Ada", "Bob", "Cy"])
    await w.match([("Ada", 1), ("Bob", 2)])
    await w.match([("Ada", 1), ("Cy", 2)])
    await api.drain_jobs()
    rows = {r["name"]: r["rating"] for r in (await board(api, "generic"))["items"]}
    assert rows == {"Ada": 1532.0, "Bob": 1484.0, "Cy": 1484.0}
