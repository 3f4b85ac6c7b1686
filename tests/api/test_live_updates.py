"""What the live stream and the webhooks announce, read from the outbox the use cases write in the
transaction of each change, on Postgres and on SQLite; and where an event stands (``current_stage``,
``current_round``, ``winner``) with standings that say whether they are ``final``. The stream itself
is read by a real SSE client from real processes in tests/workers/test_live_processes.py."""

from __future__ import annotations

from typing import Any

from app.services import outbox
from tests.support.api import (
    Api,
    advance,
    assert_problem,
    bearer,
    pair,
    play_round,
    play_stage,
    report,
    setup_event,
    start,
)


async def changes(api: Api, event_id: str, after: int = 0) -> list[dict[str, Any]]:
    """The event's outbox rows after ``after``, as streams and webhooks send them."""
    async with api.app.state.sessionmaker() as s:
        rows = await outbox.since(s, event_id, after, limit=10_000)
        await s.commit()
    return [outbox.envelope(r) for r in rows]


def placed(match: dict[str, Any], places: list[int]) -> dict[str, Any]:
    """A result body placing ``match``'s seats in order."""
    return {
        "seats": [
            {"entry_id": s["entry_id"], "place": p} for s, p in zip(match["seats"], places, strict=True)
        ]
    }


def types(rows: list[dict[str, Any]]) -> list[str]:
    return [r["type"] for r in rows]


async def test_every_change_a_screen_follows_is_in_the_outbox_in_order(api: Api) -> None:
    eid, token, entries = await setup_event(
        api, ["Ada", "Bob", "Cy", "Dee"], settings={"stages": [{"format": "swiss", "rounds": 2}]}
    )
    rows = await changes(api, eid)
    assert types(rows) == ["entry.registered"] * 4
    assert [r["data"]["entries"][0]["name"] for r in rows] == ["Ada", "Bob", "Cy", "Dee"]
    assert all(r["event_id"] == eid == r["data"]["event_id"] for r in rows)
    ids = [r["id"] for r in rows]
    assert ids == sorted(ids) and len(set(ids)) == 4
    mark = ids[-1]

    rnd = (await start(api, eid, token))["round"]
    got = await changes(api, eid, mark)
    assert types(got) == ["event.started", "round.paired"]
    paired = got[1]["data"]
    assert paired["round"] == 1 and paired["stage"] == 0
    assert [t["match_id"] for t in paired["tables"]] == [m["id"] for m in rnd["matches"]]
    assert paired["tables"][0]["entries"] == [s["entry_id"] for s in rnd["matches"][0]["seats"]]
    mark = got[-1]["id"]

    # a request that fails writes nothing: pairing while round 1 is open is a 409
    r = await api.client.post(f"/v1/events/{eid}/rounds", headers=bearer(token))
    assert_problem(r, 409)
    assert await changes(api, eid, mark) == []

    # players' claims: the first leaves the match reported, a differing one disputes it; the
    # organizer's ruling confirms it, and the stage's standings moved
    m = rnd["matches"][0]
    a, b = (s["entry_id"] for s in m["seats"])
    tokens = {e["id"]: e["entry_token"] for e in entries.values()}
    for who, places in ((a, [1, 2]), (b, [2, 1])):
        body = {"seats": [{"entry_id": a, "place": places[0]}, {"entry_id": b, "place": places[1]}]}
        r = await api.client.post(f"/v1/matches/{m['id']}/result", json=body, headers=bearer(tokens[who]))
        assert r.status_code == 200, r.text
    ruled = await api.client.put(
        f"/v1/matches/{m['id']}/result",
        json={"seats": [{"entry_id": a, "place": 1}, {"entry_id": b, "place": 2}]},
        headers={**bearer(token), "If-Match": str(r.json()["version"])},
    )
    assert ruled.status_code == 200, ruled.text
    got = await changes(api, eid, mark)
    assert types(got) == ["match.reported", "match.disputed", "match.confirmed", "standings.changed"]
    confirmed = got[2]["data"]
    assert confirmed["match_id"] == m["id"] and confirmed["status"] == "confirmed"
    assert confirmed["version"] == ruled.json()["version"]
    assert confirmed["result"]["seats"] == [
        {"entry_id": a, "place": 1, "score": None, "violation": False},
        {"entry_id": b, "place": 2, "score": None, "violation": False},
    ]
    assert got[3]["data"] == {"event_id": eid, "stage": 0, "final": False}
    mark = got[-1]["id"]

    # the organizer's report is final at once; a correction is announced as one
    second = await report(api, token, rnd["matches"][1], [1, 2])
    fixed = await api.client.put(
        f"/v1/matches/{second['id']}/result",
        json=placed(second, [2, 1]),
        headers={**bearer(token), "If-Match": str(second["version"])},
    )
    assert fixed.status_code == 200, fixed.text
    got = await changes(api, eid, mark)
    assert types(got) == ["match.confirmed", "standings.changed", "result.corrected", "standings.changed"]
    assert got[2]["data"]["result"]["seats"][0]["place"] == 2
    mark = got[-1]["id"]

    # round 2 paired, undone, paired again, two entries swapped
    await pair(api, eid, token)
    undone = await api.client.delete(f"/v1/events/{eid}/rounds/2", headers=bearer(token))
    assert undone.status_code == 200, undone.text
    again = await pair(api, eid, token)
    x, y = again["matches"][0]["seats"][0]["entry_id"], again["matches"][1]["seats"][0]["entry_id"]
    swapped = await api.client.post(
        f"/v1/events/{eid}/rounds/2/swap", json={"entries": [x, y]}, headers=bearer(token)
    )
    assert swapped.status_code == 200, swapped.text
    got = await changes(api, eid, mark)
    assert types(got) == ["round.paired", "round.undone", "round.paired", "round.swapped"]
    assert got[1]["data"] == {"event_id": eid, "round": 2, "stage": 0}
    assert got[3]["data"]["entries"] == [x, y]
    mark = got[-1]["id"]

    # the last stage closes: its standings are final, the event finished with its winner
    await play_round(api, token, swapped.json())
    await advance(api, eid, token)
    got = await changes(api, eid, mark)
    assert types(got)[-3:] == ["standings.changed", "stage.advanced", "event.finished"]
    assert got[-3]["data"] == {"event_id": eid, "stage": 0, "final": True}
    assert got[-2]["data"] == {"event_id": eid, "closed": [0], "stage": None}
    event = (await api.client.get(f"/v1/events/{eid}")).json()
    firsts = [
        r for r in (await api.client.get(f"/v1/events/{eid}/standings")).json()["rows"] if r["rank"] == 1
    ]
    expected = {"entry_id": firsts[0]["entry_id"], "name": firsts[0]["name"]} if len(firsts) == 1 else None
    assert event["winner"] == expected == got[-1]["data"]["winner"]  # null when first place is shared


async def test_entries_cancel_and_delete_are_announced(api: Api) -> None:
    eid, token, entries = await setup_event(
        api, ["Ada", "Bob", "Cy"], settings={"check_in": True, "stages": [{"format": "swiss", "rounds": 1}]}
    )
    mark = (await changes(api, eid))[-1]["id"]
    ada = entries["Ada"]["id"]
    r = await api.client.post(f"/v1/events/{eid}/entries/{ada}/check-in", headers=bearer(token))
    assert r.status_code == 200
    r = await api.client.delete(f"/v1/events/{eid}/entries/{entries['Cy']['id']}", headers=bearer(token))
    assert r.status_code == 200
    r = await api.client.patch(
        f"/v1/events/{eid}", json={"name": "Renamed"}, headers={**bearer(token), "If-Match": '"1"'}
    )
    assert r.status_code == 200, r.text
    many = await api.client.post(
        f"/v1/events/{eid}/entries", json=[{"name": "Dee"}, {"name": "Eve"}], headers=bearer(token)
    )
    assert many.status_code == 201
    got = await changes(api, eid, mark)
    assert types(got) == ["entry.checked_in", "entry.dropped", "event.updated", "entry.registered"]
    assert got[0]["data"] == {"event_id": eid, "entry_id": ada, "checked_in": True}
    assert got[2]["data"]["name"] == "Renamed"
    assert [e["name"] for e in got[3]["data"]["entries"]] == ["Dee", "Eve"]  # one row per request

    r = await api.client.post(f"/v1/events/{eid}/cancel", headers=bearer(token))
    assert r.status_code == 200
    assert types(await changes(api, eid, got[-1]["id"])) == ["event.cancelled"]

    other, other_token, _ = await setup_event(api, ["Ada"])
    r = await api.client.delete(f"/v1/events/{other}", headers=bearer(other_token))
    assert r.status_code == 204
    assert types(await changes(api, other))[-1] == "event.deleted"  # announced, though the event is gone


async def test_current_stage_round_and_final_standings(api: Api) -> None:
    names = ["Ada", "Bob", "Cy", "Dee"]
    eid, token, _ = await setup_event(api, names, settings={"stages": [{"format": "swiss", "rounds": 2}]})
    ev = (await api.client.get(f"/v1/events/{eid}")).json()
    assert (ev["current_stage"], ev["current_round"], ev["winner"]) == (None, None, None)
    started = await start(api, eid, token)
    assert (started["event"]["current_stage"], started["event"]["current_round"]) == (0, 1)
    r = (await api.client.get(f"/v1/events/{eid}/standings")).json()
    assert r["final"] is False
    await play_stage(api, eid, token, started["round"])
    ev = (await api.client.get(f"/v1/events/{eid}")).json()
    assert (ev["current_stage"], ev["current_round"], ev["winner"]) == (0, 2, None)
    done = await advance(api, eid, token)
    standings = (await api.client.get(f"/v1/events/{eid}/standings")).json()
    assert standings["final"] is True
    first = [row for row in standings["rows"] if row["rank"] == 1]
    assert len(first) == 1
    winner = {"entry_id": first[0]["entry_id"], "name": first[0]["name"]}
    assert done["event"]["winner"] == winner and done["event"]["status"] == "finished"
    listed = (await api.client.get("/v1/events")).json()["items"]
    assert next(e for e in listed if e["id"] == eid)["winner"] == winner
    assert (done["event"]["current_stage"], done["event"]["current_round"]) == (0, 2)


async def test_the_winner_comes_from_the_playoff_and_follows_a_correction(api: Api) -> None:
    # a round robin of three where everyone beats one other: a three-way tie for first (ties kept
    # shared), settled by a playoff at one table, whose winner is the event's
    eid, token, _ = await setup_event(
        api,
        ["Ada", "Bob", "Cy"],
        settings={
            "stages": [{"format": "round_robin"}, {"format": "playoff", "table_size": 3}],
            "tiebreaks": [],
        },
    )
    cycle = {("Ada", "Bob"): "Ada", ("Bob", "Cy"): "Bob", ("Ada", "Cy"): "Cy"}

    def rule(m: dict[str, Any]) -> list[int]:
        names = [s["name"] for s in m["seats"]]
        won = cycle[tuple(sorted(names))]  # type: ignore[index]
        return [1 if n == won else 2 for n in names]

    await play_stage(api, eid, token, (await start(api, eid, token))["round"], rule)
    rows = (await api.client.get(f"/v1/events/{eid}/standings")).json()["rows"]
    assert [r["rank"] for r in rows] == [1, 1, 1]
    top = rows[0]
    playoff = (await advance(api, eid, token))["round"]
    assert playoff is not None and len(playoff["matches"][0]["seats"]) == 3
    names = [s["name"] for s in playoff["matches"][0]["seats"]]
    champion = next(n for n in names if n != top["name"])
    final = await report(api, token, playoff["matches"][0], [1 if n == champion else 2 for n in names])
    done = await advance(api, eid, token)
    assert done["event"]["winner"]["name"] == champion
    assert done["event"]["current_stage"] == 1

    # the organizer corrects the playoff afterwards: the winner follows, and it is announced
    mark = (await changes(api, eid))[-1]["id"]
    corrected = [1 if n == top["name"] else 2 for n in names]
    r = await api.client.put(
        f"/v1/matches/{final['id']}/result",
        json=placed(final, corrected),
        headers={**bearer(token), "If-Match": str(final["version"])},
    )
    assert r.status_code == 200, r.text
    ev = (await api.client.get(f"/v1/events/{eid}")).json()
    assert ev["winner"]["name"] == top["name"]
    got = await changes(api, eid, mark)
    assert types(got) == ["result.corrected", "standings.changed", "event.finished"]
    assert got[1]["data"] == {"event_id": eid, "stage": 1, "final": True}
    assert got[-1]["data"]["winner"] == ev["winner"]


async def test_a_skipped_playoff_leaves_the_winner_of_the_stage_before(api: Api) -> None:
    eid, token, _ = await setup_event(
        api,
        ["Ada", "Bob", "Cy", "Dee"],
        settings={"stages": [{"format": "swiss", "rounds": 2}, {"format": "playoff"}]},
    )
    await play_stage(api, eid, token, (await start(api, eid, token))["round"])
    done = await advance(api, eid, token)
    assert done["event"]["status"] == "finished"  # no tie for first: the playoff closed at once
    top = (await api.client.get(f"/v1/events/{eid}/standings")).json()["rows"][0]
    assert done["event"]["winner"]["entry_id"] == top["entry_id"]
    assert done["event"]["current_stage"] == 0


async def test_a_double_elimination_winner_is_the_grand_final_s_not_the_most_wins(api: Api) -> None:
    names = ["Ada", "Bob", *(f"P{i:02}" for i in range(3, 17))]
    seeds = {n: i + 1 for i, n in enumerate(names)}
    eid, token, _ = await setup_event(
        api,
        {n: {"seed": s} for n, s in seeds.items()},
        settings={"stages": [{"format": "double_elimination", "method": "seeded"}]},
    )
    rnd = (await start(api, eid, token))["round"]
    # Ada loses her first game, wins through the losers' bracket, and loses the grand final to Bob,
    # who never lost: Bob won the event with fewer wins than Ada
    ada_played = 0
    while True:
        for m in rnd["matches"]:
            if m["status"] == "bye":
                continue
            seated = [s["name"] for s in m["seats"]]
            if "Ada" in seated:
                other = next(n for n in seated if n != "Ada")
                winner = other if ada_played == 0 or other == "Bob" else "Ada"
                ada_played += 1
            else:
                winner = min(seated, key=lambda n: seeds[n])
            await report(api, token, m, [1 if n == winner else 2 for n in seated])
        r = await api.client.post(f"/v1/events/{eid}/rounds", headers=bearer(token))
        if r.status_code == 409:
            break
        assert r.status_code == 201, r.text
        rnd = r.json()
    rows = (await api.client.get(f"/v1/events/{eid}/standings")).json()["rows"]
    wins = {row["name"]: row["wins"] for row in rows}
    assert wins["Ada"] > wins["Bob"]
    done = await advance(api, eid, token)
    assert done["event"]["winner"]["name"] == "Bob"
