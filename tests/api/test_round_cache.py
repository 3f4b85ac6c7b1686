"""The round cache (app/services/rounds.py ``cached_round``): ``GET …/rounds/{n}`` is read once and
then served from this process's cache until the event changes, each answer equal to an uncached
read; a tag answers 304; a client that takes gzip gets the same JSON gzipped; the pairing's per-pair
explanation comes with ``?explain=true`` only; the cache is bounded by its rounds' matches."""

from __future__ import annotations

import gzip
from typing import Any

import pytest

from app.api.rounds import round_read
from app.services import rounds as round_svc
from tests.support.api import Api, assert_problem, bearer, pair, post_result, setup_event, start

NAMES = [f"P{i:02d}" for i in range(12)]


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every read of a round from the database the cache asks for."""
    calls: list[tuple[str, int]] = []
    uncached = round_svc.round_by_number

    async def counting(session: Any, event_id: str, number: int) -> Any:
        calls.append((event_id, number))
        return await uncached(session, event_id, number)

    monkeypatch.setattr(round_svc, "round_by_number", counting)
    return calls


async def _uncached(api: Api, eid: str, number: int, explain: bool = False) -> dict[str, Any]:
    async with api.app.state.sessionmaker() as session:
        view = await round_svc.round_by_number(session, eid, number)
        return round_read(view, explain=explain).model_dump(mode="json")


async def _get(api: Api, eid: str, number: int, calls: list[Any], *, fresh: bool, **params: Any) -> Any:
    """Read the round twice: from the database once when ``fresh`` (else served), then served; both
    equal to an uncached read."""
    before = len(calls)
    r = await api.client.get(f"/v1/events/{eid}/rounds/{number}", params=params)
    assert r.status_code == 200, r.text
    assert len(calls) - before == (1 if fresh else 0)
    again = await api.client.get(f"/v1/events/{eid}/rounds/{number}", params=params)
    assert len(calls) - before == (1 if fresh else 0)
    assert again.json() == r.json() == await _uncached(api, eid, number, params.get("explain") == "true")
    return r


def _winner_first(match: dict[str, Any]) -> dict[str, Any]:
    return {"seats": [{"entry_id": s["entry_id"], "place": p + 1} for p, s in enumerate(match["seats"])]}


async def test_a_round_is_served_from_the_cache_until_the_event_changes(api: Api, reads: list[Any]) -> None:
    eid, token, _ = await setup_event(api, NAMES, settings={"stages": [{"format": "swiss", "rounds": 3}]})
    org = bearer(token)
    first = (await start(api, eid, token))["round"]
    r = await _get(api, eid, 1, reads, fresh=True)

    # a tag answers 304 with no body, the JSON's tag as well as the gzip's
    tag = r.headers["etag"]
    assert r.headers["cache-control"] == "public, no-cache"
    for sent in (tag, tag.replace("-gzip", "")):
        again = await api.client.get(f"/v1/events/{eid}/rounds/1", headers={"If-None-Match": sent})
        assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tag
    other = await api.client.get(f"/v1/events/{eid}/rounds/1", headers={"If-None-Match": '"not-it"'})
    assert other.status_code == 200

    # each result changes the round: read afresh, with a new tag
    for m in first["matches"][:2]:
        await post_result(api, token, m, _winner_first(m))
        changed = await _get(api, eid, 1, reads, fresh=True)
        assert changed.headers["etag"] != tag
        tag = changed.headers["etag"]
    stale = await api.client.get(f"/v1/events/{eid}/rounds/1", headers={"If-None-Match": r.headers["etag"]})
    assert stale.status_code == 200
    done = {m["id"]: m["status"] for m in stale.json()["matches"]}
    assert [done[m["id"]] for m in first["matches"][:2]] == ["confirmed", "confirmed"]

    # a change refused is rolled back with its mark: the cached round stands
    assert_problem(await api.client.post(f"/v1/events/{eid}/rounds", headers=org), 409)
    await _get(api, eid, 1, reads, fresh=False)

    # the next round, a swap in it, the round undone: each read afresh; round 2 is its own answer
    for m in first["matches"][2:]:
        await post_result(api, token, m, _winner_first(m))
    second = await pair(api, eid, token)
    await _get(api, eid, 2, reads, fresh=True)
    a, b = second["matches"][0]["seats"][0]["entry_id"], second["matches"][1]["seats"][0]["entry_id"]
    r = await api.client.post(f"/v1/events/{eid}/rounds/2/swap", json={"entries": [a, b]}, headers=org)
    assert r.status_code == 200, r.text
    swapped = (await _get(api, eid, 2, reads, fresh=True)).json()
    assert swapped["swaps"] and swapped["matches"] == r.json()["matches"]
    r = await api.client.delete(f"/v1/events/{eid}/rounds/2", headers=org)
    assert r.status_code == 200, r.text
    assert_problem(await api.client.get(f"/v1/events/{eid}/rounds/2"), 404)
    assert_problem(await api.client.get("/v1/events/not-an-event/rounds/1"), 404)


async def test_the_explanation_of_each_pair_comes_on_request(api: Api, reads: list[Any]) -> None:
    eid, token, _ = await setup_event(api, NAMES, settings={"stages": [{"format": "swiss", "rounds": 3}]})
    paired = (await start(api, eid, token))["round"]
    assert paired["pairing"]["pairs"]  # the organizer's answer to the pairing keeps it all
    plain = (await _get(api, eid, 1, reads, fresh=True)).json()
    explained = (await _get(api, eid, 1, reads, fresh=False, explain="true")).json()
    assert explained == paired
    assert "pairs" not in plain["pairing"]
    assert plain["pairing"] == {k: v for k, v in paired["pairing"].items() if k != "pairs"}
    assert plain["matches"] == paired["matches"]
    listed = (await api.client.get(f"/v1/events/{eid}/rounds")).json()["items"]
    assert listed == [plain]
    listed = (await api.client.get(f"/v1/events/{eid}/rounds", params={"explain": "true"})).json()["items"]
    assert listed == [explained]


async def test_a_client_that_takes_gzip_gets_it_and_one_that_does_not_gets_json(api: Api) -> None:
    eid, token, _ = await setup_event(api, NAMES, settings={"stages": [{"format": "swiss", "rounds": 3}]})
    await start(api, eid, token)
    url = f"{api.client.base_url}/v1/events/{eid}/rounds/1?explain=true"
    async with api.client.stream("GET", url, headers={"Accept-Encoding": "gzip"}) as r:
        sent = b"".join([chunk async for chunk in r.aiter_raw()])
    assert r.headers["content-encoding"] == "gzip" and "Accept-Encoding" in r.headers["vary"]
    body = gzip.decompress(sent)
    assert len(sent) < len(body)
    for refused in ("identity", "gzip;q=0, br", ""):
        async with api.client.stream("GET", url, headers={"Accept-Encoding": refused}) as r:
            raw = b"".join([chunk async for chunk in r.aiter_raw()])
        assert "content-encoding" not in r.headers and raw == body
        assert not r.headers["etag"].endswith('-gzip"')


async def test_the_cache_is_bounded_by_matches(
    api: Api, reads: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(round_svc._rounds, "most_rows", 10)
    events = []
    for _ in range(3):
        eid, token, _ = await setup_event(api, NAMES, settings={"stages": [{"format": "swiss", "rounds": 3}]})
        await start(api, eid, token)
        events.append(eid)
    for eid in events:
        await _get(api, eid, 1, reads, fresh=True)
    cache = round_svc._rounds
    assert cache.rows == sum(len(v.matches) for v in cache.answers.values()) <= 10
    await _get(api, events[2], 1, reads, fresh=False)
    await _get(api, events[0], 1, reads, fresh=True)  # the least recently served went first
