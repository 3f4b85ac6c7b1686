"""The kept standings ledger behind ``GET …/standings`` (app/services/standings.py
``ledger_standings``): results, draws, corrections and a round's byes are folded into the stage's
kept ledger, and every read equals a clean recompute of the stored results; a drop or a change of
settings makes it compute afresh."""

from __future__ import annotations

from typing import Any

import pytest

from app.services import reads
from app.services import standings as standings_svc
from app.services.reads import get_event, stage_standings
from app.services.standings import chosen_stage
from tests.support.api import Api, bearer, pair, post_result, setup_event, start


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The event of every ledger built afresh (not brought up to date)."""
    events: list[str] = []

    class Counted(standings_svc.StandingsLedger):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            events.append("built")
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(standings_svc, "StandingsLedger", Counted)
    return events


async def _clean(api: Api, eid: str) -> list[dict[str, Any]]:
    """The standings of the stage as a clean recompute gives them (``reads.stage_standings``)."""
    async with api.app.state.sessionmaker() as session:
        event = await get_event(session, eid)
        rows = await stage_standings(session, event, await chosen_stage(session, eid, None))
    return [
        {
            "rank": r.rank,
            "entry_id": r.entry_id,
            "points": r.points,
            "games": r.games,
            "wins": r.wins,
            "differential": r.differential,
            "average": r.average,
            "tiebreaks": r.tiebreaks,
            "decided_by": r.decided_by,
            "status": r.status,
        }
        for r in rows
    ]


async def _same_as_clean(api: Api, eid: str) -> list[dict[str, Any]]:
    r = await api.client.get(f"/v1/events/{eid}/standings")
    assert r.status_code == 200, r.text
    rows = [
        {
            k: row[k]
            for k in (
                "rank",
                "entry_id",
                "points",
                "games",
                "wins",
                "differential",
                "average",
                "tiebreaks",
                "decided_by",
                "status",
            )
        }
        for row in r.json()["rows"]
    ]
    assert rows == await _clean(api, eid)
    return rows


def _result(match: dict[str, Any], n: int) -> dict[str, Any]:
    """Result ``n`` of a sequence: the first seat wins, the second wins, or a draw, with margins."""
    a, b = (s["entry_id"] for s in match["seats"])
    if n % 3 == 2:
        return {"seats": [{"entry_id": a, "place": 1}, {"entry_id": b, "place": 1}]}
    winner, loser = (a, b) if n % 3 == 0 else (b, a)
    return {
        "seats": [
            {"entry_id": winner, "place": 1, "differential": 0.5 + n % 7},
            {"entry_id": loser, "place": 2},
        ]
    }


@pytest.mark.parametrize(
    "chain",
    [None, ["head_to_head", "median_buchholz", "opponent_win_pct", "differential", "sonneborn_berger"]],
)
async def test_results_and_corrections_are_folded_in_and_equal_a_clean_recompute(
    api: Api, built: list[str], chain: list[str] | None
) -> None:
    settings: dict[str, Any] = {"stages": [{"format": "swiss", "rounds": 3}]}
    if chain is not None:
        settings["tiebreaks"] = chain
    names = [f"Player {i:02d}" for i in range(9)]  # odd: a bye every round
    eid, token, entries = await setup_event(api, names, settings=settings)
    org = bearer(token)
    rnd = (await start(api, eid, token))["round"]
    await _same_as_clean(api, eid)
    assert len(built) == 1
    n = 0
    for number in (1, 2, 3):
        matches = [m for m in rnd["matches"] if m["status"] != "bye"]
        done: dict[str, dict[str, Any]] = {}
        for i, m in enumerate(matches):
            done[m["id"]] = await post_result(api, token, m, _result(m, n))
            n += 1
            if i != 1:  # the second and third result reach the ledger together
                await _same_as_clean(api, eid)
        # a correction of the round's first result: its old game out, the new one in
        first = matches[0]
        r = await api.client.put(
            f"/v1/matches/{first['id']}/result",
            json=_result(first, n),
            headers={**org, "If-Match": f'"{done[first["id"]]["version"]}"'},
        )
        assert r.status_code == 200, r.text
        n += 1
        await _same_as_clean(api, eid)
        if number < 3:
            rnd = await pair(api, eid, token)  # its bye is a game folded in
            await _same_as_clean(api, eid)
    assert len(built) == 1  # every change so far was folded into the first ledger

    # a drop changes an entry: computed afresh, and equal to the clean recompute as ever
    dropped = entries[names[0]]["id"]
    r = await api.client.delete(f"/v1/events/{eid}/entries/{dropped}", headers=org)
    assert r.status_code == 200, r.text
    rows = await _same_as_clean(api, eid)
    assert len(built) == 2 and {x["status"] for x in rows if x["entry_id"] == dropped} == {"dropped"}


async def test_a_read_after_a_change_reads_again_only_the_matches_whose_version_moved(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept read of the stage's final matches: the next read after a result reads that match's
    rows alone (the others' versions are unchanged), after a correction that one again, after a
    pairing the new round's bye; and every answer equals a clean recompute."""
    asked: list[list[str] | None] = []
    real = standings_svc.final_matches

    async def counted(session: Any, stage: Any, only: Any = None) -> Any:
        asked.append(None if only is None else sorted(only))
        return await real(session, stage, only)

    monkeypatch.setattr(standings_svc, "final_matches", counted)
    names = [f"Player {i:02d}" for i in range(7)]  # odd: a bye every round
    eid, token, _ = await setup_event(api, names, settings={"stages": [{"format": "swiss", "rounds": 2}]})
    org = bearer(token)
    standings_svc.forget_cached()
    rnd = (await start(api, eid, token))["round"]
    await _same_as_clean(api, eid)
    assert asked == [None]  # the first read reads the whole stage
    matches = [m for m in rnd["matches"] if m["status"] != "bye"]
    done = {}
    for n, m in enumerate(matches):
        done[m["id"]] = await post_result(api, token, m, _result(m, n))
        asked.clear()
        await _same_as_clean(api, eid)
        assert asked == [[m["id"]]]
    first = matches[0]
    r = await api.client.put(
        f"/v1/matches/{first['id']}/result",
        json=_result(first, 5),
        headers={**org, "If-Match": f'"{done[first["id"]]["version"]}"'},
    )
    assert r.status_code == 200, r.text
    asked.clear()
    await _same_as_clean(api, eid)
    assert asked == [[first["id"]]]
    asked.clear()
    await _same_as_clean(api, eid)  # nothing changed: served from the cache, nothing read
    assert asked == []
    second = await pair(api, eid, token)
    asked.clear()
    await _same_as_clean(api, eid)
    assert asked == [[m["id"] for m in second["matches"] if m["status"] == "bye"]]
    # the round undone: its bye's match is gone from the versions read, and nothing is read again
    r = await api.client.delete(f"/v1/events/{eid}/rounds/2", headers=org)
    assert r.status_code == 200, r.text
    asked.clear()
    await _same_as_clean(api, eid)  # the bye's point gone, as in a clean recompute
    assert asked == []


async def test_many_matches_changed_between_two_reads_are_read_again_in_parts(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole round reported between two reads: its matches are read again in statements of
    ``FINAL_CHUNK`` matches (two here), and the answer equals a clean recompute."""
    monkeypatch.setattr(reads, "FINAL_CHUNK", 2)
    names = [f"Player {i:02d}" for i in range(10)]
    eid, token, _ = await setup_event(api, names, settings={"stages": [{"format": "swiss", "rounds": 2}]})
    standings_svc.forget_cached()
    rnd = (await start(api, eid, token))["round"]
    await _same_as_clean(api, eid)
    for n, m in enumerate(rnd["matches"]):
        await post_result(api, token, m, _result(m, n))
    rows = await _same_as_clean(api, eid)
    assert sum(row["games"] for row in rows) == len(names)


async def test_the_kept_ledgers_are_bounded(
    api: Api, built: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At most ``LEDGERS`` stages kept, the least recently used going first; a stage of more than
    ``LEDGER_GAMES`` games is computed afresh and not kept."""
    monkeypatch.setattr(standings_svc, "LEDGERS", 1)
    settings = {"stages": [{"format": "swiss", "rounds": 2}]}
    events = []
    for _ in range(2):
        eid, token, _ = await setup_event(api, ["Ada", "Barbara", "Claude", "Dijkstra"], settings=settings)
        rnd = (await start(api, eid, token))["round"]
        await post_result(api, token, rnd["matches"][0], _result(rnd["matches"][0], 0))
        events.append((eid, token, rnd))
    for eid, _, _ in events:
        await _same_as_clean(api, eid)
    assert [k[0] for k in standings_svc._ledgers] == [events[1][0]] and len(built) == 2

    monkeypatch.setattr(standings_svc, "LEDGER_GAMES", 0)
    eid, token, rnd = events[0]
    await post_result(api, token, rnd["matches"][1], _result(rnd["matches"][1], 1))
    await _same_as_clean(api, eid)
    assert len(built) == 2 and events[0][0] not in {k[0] for k in standings_svc._ledgers}
