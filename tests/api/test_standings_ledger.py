"""The kept standings ledger behind ``GET …/standings`` (app/services/standings.py
``ledger_standings``): results, draws, corrections and a round's byes are folded into the stage's
kept ledger, and every read equals a clean recompute of the stored results; a drop or a change of
settings makes it compute afresh."""

from __future__ import annotations

from typing import Any

import pytest

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
