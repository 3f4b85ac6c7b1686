"""Bulk registration is set-based and answers as the rows registered one by one would: the same
players found or made (by player_id, external id, name key), the same entries in the same order, each
token working; and one bad row anywhere changes nothing (docs/api.md "Registration in bulk")."""

from __future__ import annotations

from typing import Any

from tests.support.api import Api, assert_problem, bearer, make_event

ROWS = 2000
KINDS = 10  # the kinds of row below, cycled


async def _prior(api: Api, prefix: str) -> dict[int, dict[str, Any]]:
    """Players an earlier event registered, for the rows that find an existing player: by row index,
    the entry made (its player_id)."""
    event, token = await make_event(api, name=f"Earlier {prefix}")
    rows: list[dict[str, Any]] = []
    index: list[int] = []
    for i in range(ROWS):
        kind = i % KINDS
        if kind in (2, 3, 5, 6):
            rows.append({"name": f"{prefix} Old {i}"})
        elif kind == 4:
            rows.append({"name": f"{prefix} Held {i}", "external_id": f"{prefix}-X{i}"})
        else:
            continue
        index.append(i)
    r = await api.client.post(f"/v1/events/{event['id']}/entries", json=rows, headers=bearer(token))
    assert r.status_code == 201, r.text
    return dict(zip(index, r.json(), strict=True))


def _rows(prefix: str, prior: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """Every kind of registration row: new players (with or without an external id, a seed, a club,
    characters, a rating), existing ones by name (case and width folded), by name gaining an external
    id, by external id under another name, by player_id."""
    out: list[dict[str, Any]] = []
    for i in range(ROWS):
        kind = i % KINDS
        row: dict[str, Any]
        if kind == 0:
            row = {"name": f"{prefix} New {i}"}
        elif kind == 1:
            row = {"name": f"{prefix}  New   {i} ", "external_id": f"{prefix}-N{i}"}
        elif kind == 2:
            row = {"name": f"{prefix} Old {i}"}
        elif kind == 3:
            row = {"name": f"{prefix} old {i}", "external_id": f"{prefix}-G{i}"}
        elif kind == 4:
            row = {"name": f"{prefix} Renamed {i}", "external_id": f"{prefix}-X{i}"}
        elif kind == 5:
            row = {"player_id": prior[i]["player_id"]}
        elif kind == 6:
            row = {"name": f"{prefix} OLD {i}".upper().replace(" ", "  ")}
        elif kind == 7:
            row = {"name": f"{prefix} Seeded {i}", "seed": i + 1}
        elif kind == 8:
            row = {"name": f"{prefix} Club {i}", "club": f" Club  {i % 7}", "characters": ["Red", "Blue"]}
        else:
            row = {"name": f"{prefix} Rated {i}", "rating": 1000 + i, "organizer": i % 100 == 9}
        out.append(row)
    return out


def _shape(entry: dict[str, Any], prefix: str, prior: dict[int, dict[str, Any]], i: int) -> dict[str, Any]:
    """What an entry must equal across the two prefixes: its fields with the prefix taken out, and
    its player as "the earlier one of this row" or "a new one"."""
    earlier = prior.get(i)
    return {
        "name": entry["name"].replace(prefix, "P"),
        "player": "earlier" if earlier and entry["player_id"] == earlier["player_id"] else "new",
        **{
            k: entry[k]
            for k in (
                "status",
                "characters",
                "organizer",
                "rating",
                "seed",
                "club",
                "matched_by",
                "checked_in",
                "group",
            )
        },
    }


async def _listed(api: Api, event_id: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"limit": 500, **({"cursor": cursor} if cursor else {})}
        page = (await api.client.get(f"/v1/events/{event_id}/entries", params=params)).json()
        items += page["items"]
        cursor = page["next_cursor"]
        if not cursor:
            return items


async def test_bulk_registration_answers_as_one_by_one(api: Api) -> None:
    bulk_prior, single_prior = await _prior(api, "Bulk"), await _prior(api, "Single")
    settings = {"settings": {"check_in": True}}
    bulk_event, bulk_token = await make_event(api, name="Bulk", **settings)
    single_event, single_token = await make_event(api, name="Single", **settings)

    url = f"/v1/events/{bulk_event['id']}/entries"
    r = await api.client.post(url, json=_rows("Bulk", bulk_prior), headers=bearer(bulk_token))
    assert r.status_code == 201, r.text
    bulk = r.json()
    single: list[dict[str, Any]] = []
    for row in _rows("Single", single_prior):
        r = await api.client.post(
            f"/v1/events/{single_event['id']}/entries", json=row, headers=bearer(single_token)
        )
        assert r.status_code == 201, r.text
        single.append(r.json())

    assert len(bulk) == len(single) == ROWS
    assert [_shape(e, "Bulk", bulk_prior, i) for i, e in enumerate(bulk)] == [
        _shape(e, "Single", single_prior, i) for i, e in enumerate(single)
    ]
    assert {e["matched_by"] for e in bulk} == {"new", "name", "external_id", "player_id"}
    assert len({e["player_id"] for e in bulk}) == ROWS  # one player per row, none made twice
    assert len({e["entry_token"] for e in bulk}) == ROWS

    # the list is in row order, and says what the answer said (without the tokens)
    listed = await _listed(api, bulk_event["id"])
    assert [e["id"] for e in listed] == [e["id"] for e in bulk]
    assert listed == [{k: v for k, v in e.items() if k != "entry_token"} for e in bulk]

    # players: an existing one gained the row's external id, a new one holds its own
    for i in (3, 1):
        for made, prefix in ((bulk[i], "Bulk"), (single[i], "Single")):
            player = (await api.client.get(f"/v1/players/{made['player_id']}")).json()
            assert player["external_id"] == f"{prefix}-{'G' if i == 3 else 'N'}{i}"

    # each token speaks for its own entry (checked in with it), once
    for i in range(0, ROWS, 97):
        entry = bulk[i]
        r = await api.client.post(f"{url}/{entry['id']}/check-in", headers=bearer(entry["entry_token"]))
        assert r.status_code == 200, r.text
        other = bulk[(i + 1) % ROWS]
        r = await api.client.post(f"{url}/{other['id']}/check-in", headers=bearer(entry["entry_token"]))
        assert r.status_code == 403, r.text

    # the same rows again: every one is already entered, and nothing is written
    r = await api.client.post(url, json=_rows("Bulk", bulk_prior)[:50], headers=bearer(bulk_token))
    body = assert_problem(r, 422)
    assert {e["loc"][1] for e in body["errors"]} == set(range(50))


async def test_a_bad_row_in_the_middle_changes_nothing(api: Api) -> None:
    event, token = await make_event(api, name="All or nothing")
    url = f"/v1/events/{event['id']}/entries"
    rows: list[dict[str, Any]] = [
        {"name": f"Middle {i}", "external_id": f"M-{i}", "seed": i + 1} for i in range(ROWS)
    ]
    rows[1000] = {"player_id": "no-such-player"}
    rows[1500] = {"name": "middle  3", "external_id": "M-3"}  # the same player as row 3
    rows[1700] = {"name": "Another", "external_id": "M-7"}  # row 7 gives M-7 to its new player
    r = await api.client.post(url, json=rows, headers=bearer(token))
    body = assert_problem(r, 422)
    assert {tuple(e["loc"][:2]) for e in body["errors"]} == {("rows", 1000), ("rows", 1500), ("rows", 1700)}
    assert "3 bad row(s)" in body["detail"]
    assert (await api.client.get(url)).json()["items"] == []
    found = (await api.client.get("/v1/players", params={"q": "Middle"})).json()["items"]
    assert found == []  # no player was made either

    # a CSV with one bad line: its line is named, nothing is written
    csv = "name,rating\n" + "".join(f"Line {i},{1500 + i}\n" for i in range(ROWS))
    csv = csv.replace("Line 999,2499", "Line 999,lots")
    r = await api.client.post(url, content=csv, headers={**bearer(token), "Content-Type": "text/csv"})
    body = assert_problem(r, 422)
    assert {tuple(e["loc"][:2]) for e in body["errors"]} == {("csv", 1001)}
    assert (await api.client.get(url)).json()["items"] == []

    # the rows made good: every row is registered, in order
    rows[1000] = {"name": "Middle 1000", "external_id": "M-1000", "seed": 1001}
    rows[1500] = {"name": "Middle 1500", "external_id": "M-1500", "seed": 1501}
    rows[1700] = {"name": "Middle 1700", "external_id": "M-1700", "seed": 1701}
    r = await api.client.post(url, json=rows, headers=bearer(token))
    assert r.status_code == 201, r.text
    assert [e["name"] for e in r.json()] == [row["name"] for row in rows]
    assert [e["seed"] for e in await _listed(api, event["id"])] == list(range(1, ROWS + 1))
