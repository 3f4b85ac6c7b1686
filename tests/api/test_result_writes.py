"""What a reported result writes (app/services/results.py ``_write_match``, ``_history``): the match,
its seats and one history row, each once — the commit's flush writes nothing again — and the match's
version moves by one per change of its result, the history row naming the version it made."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event

from tests.support.api import Api, bearer, post_result, setup_event, start


async def test_a_result_writes_its_match_seats_and_history_once(api: Api) -> None:
    eid, token, entries = await setup_event(api, ["Ada", "Bob", "Cy", "Dee"])
    first, second = (await start(api, eid, token))["round"]["matches"][:2]
    statements: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, params: Any, context: Any, many: bool) -> None:
        statements.append(" ".join(statement.split()[:3]))

    engine = api.app.state.engine.sync_engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        places = {
            "seats": [{"entry_id": s["entry_id"], "place": p + 1} for p, s in enumerate(first["seats"])]
        }
        done = await post_result(api, token, first, places)
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    writes = [s for s in statements if s.split()[0] in ("UPDATE", "INSERT")]
    assert writes.count("UPDATE matches SET") == 1 and writes.count("UPDATE seats SET") == 1, statements
    assert writes.count("INSERT INTO result_history") == 1, statements
    assert done["status"] == "confirmed" and done["version"] == first["version"] + 1
    read = (await api.client.get(f"/v1/matches/{first['id']}")).json()
    assert [(h["action"], h["version"]) for h in read["history"]] == [("report", done["version"])]
    assert [s["place"] for s in read["result"]["seats"]] == [1, 2]

    # players' claims: the first changes nothing of the match but its status; the second confirms
    tokens = {e["id"]: e["entry_token"] for e in entries.values()}
    seats = [s["entry_id"] for s in second["seats"]]
    claim = {"seats": [{"entry_id": e, "place": p + 1} for p, e in enumerate(seats)]}
    filed = await post_result(api, tokens[seats[0]], second, claim)
    assert filed["status"] == "reported"
    agreed = await post_result(api, tokens[seats[1]], second, claim)
    assert agreed["status"] == "confirmed" and agreed["version"] > filed["version"]
    read = (await api.client.get(f"/v1/matches/{second['id']}")).json()
    assert [h["action"] for h in read["history"]] == ["claim", "claim", "confirm"]
    assert read["history"][-1]["version"] == read["version"] == agreed["version"]
    # the tag read is the If-Match of a correction, which goes on from the version written
    flipped = {"seats": [{"entry_id": e, "place": 2 - p} for p, e in enumerate(seats)]}
    r = await api.client.put(
        f"/v1/matches/{second['id']}/result",
        json=flipped,
        headers={**bearer(token), "If-Match": f'"{read["version"]}"'},
    )
    assert r.status_code == 200, r.text
    assert r.json()["version"] == read["version"] + 1
    assert [s["place"] for s in r.json()["result"]["seats"]] == [2, 1]
