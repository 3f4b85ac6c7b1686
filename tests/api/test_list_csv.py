"""Every list as CSV (api.md "CSV"), on Postgres and on the SQLite default: the CSV read back with
the csv module is the JSON list of the same resource, field by field (nested models as dotted
columns, lists of plain values joined with `; `, other nested values as JSON text, a player's
ratings one line per change); the header comes from the item's schema in the OpenAPI document, an
empty list's too; each answer has its ETag and a 304; an explicit `limit` gives that many rows and a
`Link` to the rest; `Accept: text/csv` asks for it too; a token-protected list refuses its CSV
without the token; a text that would start a formula is neutralised.

One world per backend (module-scoped): the tests only read it."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from app.api import csv_io, paging
from app.api.caching import CSV_LISTS
from app.cli import openapi_document
from tests.support.api import Api, api_client, bearer, make_event, play_round, setup_event, start
from tests.support.live import receiver
from tests.support.services import clean

SPEC = json.loads(openapi_document())
SCHEMAS = SPEC["components"]["schemas"]
FORMULA = "=SUM(A1)"


@dataclass
class World:
    api: Api
    event: str
    organizer: str
    other_organizer: str
    player: str  # Ada's: a rating in three pools, two changes in one
    hook: str  # the event's webhook with deliveries
    quiet_hook: str  # one that has none
    admin_hook: str  # every event's, with deliveries


async def _build(api: Api, url: str) -> World:
    admin = api.admin()
    r = await api.client.post("/v1/webhooks", json={"url": f"{url}/all"}, headers=admin)
    assert r.status_code == 201, r.text
    admin_hook = r.json()["id"]
    for i in range(2):
        r = await api.client.post(
            "/v1/webhooks", json={"url": f"{url}/quiet{i}", "events": ["event.deleted"]}, headers=admin
        )
        assert r.status_code == 201, r.text
    created, org = await make_event(
        api, name="Spring Open", settings={"rated": True, "stages": [{"format": "swiss", "rounds": 2}]}
    )
    eid = created["id"]
    hooks = []
    for i, types in enumerate([None, ["event.deleted"], ["match.confirmed", "round.paired"]]):
        body: dict[str, Any] = {"url": f"{url}/e{i}", **({"events": types} if types else {})}
        r = await api.client.post(f"/v1/events/{eid}/webhooks", json=body, headers=bearer(org))
        assert r.status_code == 201, r.text
        hooks.append(r.json()["id"])
    seasons = []
    for name in ("Spring league", "Summer league", "Club ladder"):
        r = await api.client.post("/v1/seasons", json={"name": name, "points": [3, 2, 1]}, headers=admin)
        assert r.status_code == 201, r.text
        seasons.append(r.json()["id"])
    _, other, _ = await setup_event(api, ["Zed"], name="Summer Cup", season_id=seasons[0])
    await make_event(api, name="Autumn Cup", season_id=seasons[0])
    entries = {
        "Ada Lovelace": {"external_id": "FIDE-1", "rating": 1850, "club": "Hackers"},
        FORMULA: {"club": "+Plus"},
        "Bob": {},
        "Cy": {"seed": 1},
    }
    ids = {}
    for name, body in entries.items():
        r = await api.client.post(
            f"/v1/events/{eid}/entries", json={"name": name, **body}, headers=bearer(org)
        )
        assert r.status_code == 201, r.text
        ids[name] = r.json()
    for name, role in [("Sam", "scorekeeper"), ("@Jo", "judge"), ("Kim", "scorekeeper")]:
        r = await api.client.post(
            f"/v1/events/{eid}/staff", json={"name": name, "role": role}, headers=bearer(org)
        )
        assert r.status_code == 201, r.text
    pair = [ids["Bob"]["id"], ids["Cy"]["id"]]
    r = await api.client.put(f"/v1/events/{eid}/forbidden-pairs", json={"pairs": [pair]}, headers=bearer(org))
    assert r.status_code == 200, r.text
    for text in ["Welcome", "-1 point for lateness", "Round 2 soon"]:
        r = await api.client.post(f"/v1/events/{eid}/announcements", json={"text": text}, headers=bearer(org))
        assert r.status_code == 201, r.text
    first = (await start(api, eid, org))["round"]
    await play_round(api, org, first)
    r = await api.client.post(f"/v1/events/{eid}/rounds", headers=bearer(org))
    assert r.status_code == 201, r.text
    await play_round(api, org, r.json())
    await api.drain_jobs()
    ada = ids["Ada Lovelace"]["player_id"]
    for pool, rating in [("blitz", 1700), ("rapid", 1650.5)]:
        r = await api.client.put(f"/v1/ratings/{pool}/settings", json={"k": 24}, headers=admin)
        assert r.status_code == 200, r.text
        r = await api.client.put(f"/v1/players/{ada}/ratings/{pool}", json={"rating": rating}, headers=admin)
        assert r.status_code == 200, r.text
    await api.drain_jobs()
    return World(api, eid, org, other, ada, hooks[0], hooks[1], admin_hook)


@pytest.fixture(scope="module", params=["postgres", "sqlite"])
async def world(request: pytest.FixtureRequest, _apps: Any) -> AsyncIterator[World]:
    backend: str = request.param
    app = await _apps.on(backend)
    await clean(app.state.engine)
    async with api_client(app, backend) as api:
        async with receiver() as rec:
            built = await _build(api, rec.url)
            await api.drain_jobs()
        yield built


# operation → (path, who reads it, the item's schema, the field a line is made per element of)
LISTS: dict[str, tuple[str, str | None, str, str | None]] = {
    "list_events": ("/v1/events", None, "EventRead", None),
    "list_announcements": ("/v1/events/{event}/announcements", None, "AnnouncementRead", None),
    "list_entries": ("/v1/events/{event}/entries", None, "EntryRead", None),
    "get_event_history": ("/v1/events/{event}/history", None, "HistoryEntryRead", None),
    "list_staff": ("/v1/events/{event}/staff", "organizer", "StaffRead", None),
    "list_event_webhooks": ("/v1/events/{event}/webhooks", "organizer", "WebhookRead", None),
    "list_event_webhook_deliveries": (
        "/v1/events/{event}/webhooks/{hook}/deliveries",
        "organizer",
        "DeliveryRead",
        None,
    ),
    "list_games": ("/v1/games", None, "GameRead", None),
    "list_players": ("/v1/players", None, "PlayerRead", None),
    "get_player_ratings": ("/v1/players/{player}/ratings", None, "PlayerRating", "history"),
    "list_presets": ("/v1/presets", None, "PresetRead", None),
    "list_webhooks": ("/v1/webhooks", "admin", "WebhookRead", None),
    "list_webhook_deliveries": ("/v1/webhooks/{admin_hook}/deliveries", "admin", "DeliveryRead", None),
    "list_seasons": ("/v1/seasons", None, "SeasonListed", None),
}
PAGED = [op for op in LISTS if op != "list_presets"]  # the presets are one whole list


def _where(w: World, op: str) -> tuple[str, dict[str, str]]:
    path, who, _, _ = LISTS[op]
    url = path.format(event=w.event, hook=w.hook, player=w.player, admin_hook=w.admin_hook)
    token = {"organizer": bearer(w.organizer), "admin": w.api.admin(), None: {}}[who]
    return url, token


def _ref(schema: dict[str, Any]) -> str | None:
    """The component a property is (itself, or null) when it is one object model."""
    refs = [s["$ref"] for s in [schema, *schema.get("anyOf", [])] if "$ref" in s]
    if len(refs) == 1 and SCHEMAS[refs[0].rsplit("/", 1)[1]].get("type") == "object":
        return refs[0].rsplit("/", 1)[1]
    return None


def columns(name: str, explode: str | None = None, prefix: str = "") -> list[str]:
    """The CSV's columns the contract implies (sorted: the document sorts its keys): the item
    schema's properties, a nested model's under its name, the exploded list's elements' under its
    name."""
    out = []
    for prop, schema in SCHEMAS[name]["properties"].items():
        inner = _ref(schema) or (_ref(schema["items"]) if prop == explode else None)
        out += columns(inner, None, f"{prefix}{prop}.") if inner else [f"{prefix}{prop}"]
    return sorted(out)


def _flat(item: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in item.items():
        out[f"{prefix}{key}"] = value
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
    return out


def _same(cell: str, value: Any) -> bool:
    """Whether a CSV cell says what the JSON says."""
    if value is None:
        return cell == ""
    if isinstance(value, bool):
        return cell == ("true" if value else "false")
    if isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        return cell == "; ".join(str(v) for v in value)
    if isinstance(value, dict | list):
        return bool(json.loads(cell) == value)
    if isinstance(value, str) and value.startswith(("=", "+", "-", "@")):
        return cell == "'" + value
    return cell == str(value)


def lines_of(items: list[dict[str, Any]], header: list[str], explode: str | None) -> list[dict[str, Any]]:
    """The JSON items as the CSV's lines: a value for each column (missing: a nested null)."""
    out = []
    for item in items:
        for element in (item[explode] or [None]) if explode else [None]:
            flat = _flat({**item, explode: element} if explode else item)
            out.append({c: flat.get(c) for c in header})
    return out


def rows(text: str) -> tuple[list[str], list[dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(text))
    return list(reader.fieldnames or []), list(reader)


async def whole_json(w: World, op: str) -> list[dict[str, Any]]:
    url, token = _where(w, op)
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        params = {"cursor": cursor} if cursor else {}
        r = await w.api.client.get(url, params=params, headers=token)
        assert r.status_code == 200, r.text
        items += r.json()["items"]
        if (cursor := r.json()["next_cursor"]) is None:
            return items


def _next(link: str | None) -> str | None:
    if link is None:
        return None
    found = re.fullmatch(r'<([^>]+)>; rel="next"', link)
    assert found, link
    return found.group(1)


@pytest.mark.parametrize("op", list(LISTS))
async def test_a_list_s_csv_reads_back_as_its_json(world: World, op: str) -> None:
    _, _, schema, explode = LISTS[op]
    url, token = _where(world, op)
    items = await whole_json(world, op)
    assert len(items) >= 3, op
    r = await world.api.client.get(url, params={"format": "csv"}, headers=token)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "text/csv; charset=utf-8"
    assert r.headers["content-disposition"].startswith("attachment; filename=") and "link" not in r.headers
    header, got = rows(r.text)
    # the schema's columns, in the order of the JSON's fields
    assert sorted(header) == columns(schema, explode)
    assert list(dict.fromkeys(c.split(".")[0] for c in header)) == list(items[0])
    want = lines_of(items, header, explode)
    assert len(got) == len(want)
    for line, (cells, values) in enumerate(zip(got, want, strict=True), 2):
        bad = {c: (cells[c], values[c]) for c in header if not _same(cells[c], values[c])}
        assert not bad, (op, line, bad)


async def test_names_and_the_exploded_ratings_read_as_a_person_expects(world: World) -> None:
    api = world.api
    r = await api.client.get(f"/v1/events/{world.event}/entries", params={"format": "csv"})
    assert r.headers["content-disposition"] == f'attachment; filename="entries-{world.event}.csv"'
    _, entries = rows(r.text)
    assert [e["name"] for e in entries] == ["Ada Lovelace", "'" + FORMULA, "Bob", "Cy"]  # not a formula
    assert entries[1]["club"] == "'+Plus" and entries[0]["rating"] == "1850.0"
    assert entries[0]["organizer"] == "false" and entries[0]["characters"] == ""
    # nothing in the raw text starts a cell with a formula's sign
    assert not re.search(r'(^|,)"?[=+@-]', r.text, re.M), r.text
    _, ratings = rows((await api.client.get(f"/v1/players/{world.player}/ratings?format=csv")).text)
    assert [(x["pool"], x["history.before"] != "") for x in ratings] == [
        ("blitz", False),
        ("generic", True),
        ("generic", True),
        ("rapid", False),
    ]
    assert ratings[3]["rating"] == "1650.5" and ratings[1]["history.after"] == ratings[2]["history.before"]
    _, hooks = rows(
        (
            await api.client.get(
                f"/v1/events/{world.event}/webhooks?format=csv", headers=bearer(world.organizer)
            )
        ).text
    )
    assert [h["events"] for h in hooks] == ["", "event.deleted", "match.confirmed; round.paired"]
    _, listed = rows((await api.client.get("/v1/events?format=csv")).text)
    assert [(e["name"], e["winner.entry_id"], e["winner.name"]) for e in listed] == [
        ("Autumn Cup", "", ""),
        ("Summer Cup", "", ""),
        ("Spring Open", "", ""),
    ]


async def test_an_empty_list_keeps_its_header(world: World) -> None:
    url = f"/v1/events/{world.event}/webhooks/{world.quiet_hook}/deliveries"
    r = await world.api.client.get(url, params={"format": "csv"}, headers=bearer(world.organizer))
    assert r.status_code == 200, r.text
    header, lines = rows(r.text)
    assert sorted(header) == columns("DeliveryRead") and header[:2] == ["id", "webhook_id"] and lines == []
    assert r.text == ",".join(header) + "\n"
    r = await world.api.client.get("/v1/players", params={"q": "nobody", "format": "csv"})
    assert rows(r.text) == (["id", "name", "external_id", "created_at"], []) and r.headers[
        "content-disposition"
    ].endswith('"players.csv"')


@pytest.mark.parametrize("op", list(LISTS))
async def test_a_list_s_csv_has_its_etag_and_answers_304(world: World, op: str) -> None:
    url, token = _where(world, op)
    api = world.api
    csv_answer = await api.client.get(url, params={"format": "csv"}, headers=token)
    json_answer = await api.client.get(url, headers=token)
    tag = csv_answer.headers["etag"]
    assert tag.startswith('"') and tag != json_answer.headers["etag"]
    assert "Accept" in csv_answer.headers["vary"]
    assert csv_answer.headers["cache-control"] == ("private, no-cache" if token else "public, no-cache")
    again = await api.client.get(url, params={"format": "csv"}, headers={**token, "If-None-Match": tag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tag
    # the JSON's tag is the JSON's own: it does not answer 304 for the CSV
    other = await api.client.get(
        url, params={"format": "csv"}, headers={**token, "If-None-Match": json_answer.headers["etag"]}
    )
    assert other.status_code == 200
    # Accept: text/csv asks for the same CSV; JSON named first keeps JSON
    by_accept = await api.client.get(url, headers={**token, "Accept": "text/csv"})
    assert by_accept.text == csv_answer.text and by_accept.headers["etag"] == tag
    mixed = await api.client.get(url, headers={**token, "Accept": "application/json, text/csv"})
    assert mixed.headers["content-type"] == "application/json" and mixed.json() == json_answer.json()


@pytest.mark.parametrize("op", PAGED)
async def test_an_explicit_limit_gives_that_many_rows_and_a_link_to_the_rest(world: World, op: str) -> None:
    url, token = _where(world, op)
    api = world.api
    whole = (await api.client.get(url, params={"format": "csv"}, headers=token)).text
    header, every = rows(whole)
    # an item is a line, or (a player's ratings) the lines of one pool
    items = [x["pool"] for x in every] if LISTS[op][3] else list(range(len(every)))
    got: list[dict[str, str]] = []
    link: str | None = f"{url}?limit=2&format=csv"
    pages = 0
    while link is not None:
        r = await api.client.get(link, headers=token)
        assert r.status_code == 200, r.text
        part_header, part = rows(r.text)
        assert part_header == header and 0 < len(set(items[len(got) : len(got) + len(part)])) <= 2
        got += part
        link = _next(r.headers.get("link"))
        pages += 1
        if link is not None:
            assert "limit=2" in link and "format=csv" in link and "cursor=" in link
    assert got == every and pages == -(-len(set(items)) // 2) and pages >= 2
    # a cursor without a limit: every row after the first item
    first = (await api.client.get(url, params={"limit": 1}, headers=token)).json()
    r = await api.client.get(url, params={"format": "csv", "cursor": first["next_cursor"]}, headers=token)
    assert rows(r.text)[1] == every[items.count(items[0]) :] and "link" not in r.headers


async def test_a_long_list_stops_at_the_cap_and_links_to_the_rest(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cap, made 2 for the test; the events, read from their service one at a time."""
    monkeypatch.setattr(csv_io, "CSV_MAX_ROWS", 2)
    monkeypatch.setattr(paging, "SERVICE_CHUNK", 1)
    every = [e["id"] for e in await whole_json(world, "list_events")]
    r = await world.api.client.get("/v1/events", params={"format": "csv"})
    first = [e["id"] for e in rows(r.text)[1]]
    link = _next(r.headers["link"])
    assert link is not None and "limit" not in link
    rest = await world.api.client.get(link)
    assert first + [e["id"] for e in rows(rest.text)[1]] == every and "link" not in rest.headers


@pytest.mark.parametrize("op", [op for op in LISTS if LISTS[op][1]])
async def test_a_protected_list_refuses_its_csv_without_its_token(world: World, op: str) -> None:
    url, _ = _where(world, op)
    api = world.api
    for headers in [{}, bearer(world.other_organizer), bearer("not-a-token")]:
        as_json = await api.client.get(url, headers=headers)
        for asked in [{"params": {"format": "csv"}}, {"headers": {**headers, "Accept": "text/csv"}}]:
            r = await api.client.get(url, **({"headers": headers} | asked))
            assert r.status_code == as_json.status_code and r.status_code in (401, 403), (op, headers)
            assert r.headers["content-type"].startswith("application/problem+json")
            assert "text/csv" not in r.headers["content-type"] and "etag" not in r.headers


def test_every_list_of_the_document_answers_csv() -> None:
    """A GET whose answer is a page (`{items, next_cursor}`) declares its CSV and its Link, and this
    module reads each: a new list cannot forget its CSV."""
    pages = set()
    for ops in SPEC["paths"].values():
        get = ops.get("get")
        ok = get and get["responses"]["200"]
        ref = ok and ok["content"].get("application/json", {}).get("schema", {}).get("$ref", "")
        if ref and {"items", "next_cursor"} <= set(SCHEMAS[ref.rsplit("/", 1)[1]].get("properties", {})):
            pages.add(get["operationId"])
            assert "text/csv" in ok["content"], get["operationId"]
            # the rounds, the pools and a leaderboard have CSVs of their own (api.md "Exports", "Ratings")
            assert ("Link" in ok["headers"]) == (get["operationId"] in CSV_LISTS), get["operationId"]
    assert pages - {"list_rounds", "list_rating_pools", "get_leaderboard"} == set(LISTS) == CSV_LISTS


@pytest.mark.parametrize("path", ["standings", "crosstable", "rounds"])
async def test_an_event_s_tables_answer_csv_by_accept_with_their_etag(world: World, path: str) -> None:
    """The standings, the cross-table and the rounds' pairings, as the lists: `Accept: text/csv` as
    `?format=csv`, an ETag of the CSV's own and a 304 when it is unchanged."""
    api = world.api
    url = f"/v1/events/{world.event}/{path}"
    by_format = await api.client.get(url, params={"format": "csv"})
    assert by_format.status_code == 200 and by_format.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(by_format.text)))
    assert len(rows) > 1  # a header and the event's lines
    by_accept = await api.client.get(url, headers={"Accept": "text/csv"})
    assert by_accept.text == by_format.text and by_accept.headers["etag"] == by_format.headers["etag"]
    plain = await api.client.get(url, headers={"Accept": "application/json"})
    assert plain.headers["content-type"].startswith("application/json")
    again = await api.client.get(
        url, headers={"Accept": "text/csv", "If-None-Match": by_format.headers["etag"]}
    )
    assert again.status_code == 304 and again.content == b""
