"""The client contract on both backends: strong ETags from the body with 304s on the polled reads,
Cache-Control, the one page shape with its cursors, and a match's tag serving as its If-Match."""

from __future__ import annotations

from typing import Any

import jsonschema_rs

from tests.support.api import Api, assert_problem, bearer, report, setup_event, start

NAMES = ["Ada", "Bob", "Cy", "Di", "Eve", "Fay"]


async def _running(api: Api) -> tuple[str, str, dict[str, Any]]:
    eid, token, _ = await setup_event(api, NAMES, settings={"stages": [{"format": "swiss", "rounds": 3}]})
    rnd = (await start(api, eid, token))["round"]
    return eid, token, rnd


async def test_unchanged_polled_reads_answer_304_and_a_change_a_new_tag(api: Api) -> None:
    eid, token, rnd = await _running(api)
    match = rnd["matches"][0]
    reads = [
        f"/v1/events/{eid}/standings",
        f"/v1/events/{eid}/rounds",
        f"/v1/events/{eid}/rounds/1",
        f"/v1/events/{eid}/entries",
        f"/v1/matches/{match['id']}",
    ]
    tags = {}
    for url in reads:
        r = await api.client.get(url)
        assert r.status_code == 200, r.text
        tag = r.headers["etag"]
        assert tag.startswith('"') and not tag.startswith("W/"), tag
        assert r.headers["cache-control"] == "public, no-cache"
        again = await api.client.get(url, headers={"If-None-Match": tag})
        assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tag
        other = await api.client.get(url, headers={"If-None-Match": '"not-it"'})
        assert other.status_code == 200 and other.json() == r.json()
        tags[url] = tag
    await report(api, token, match, [1, 2])
    for url in (f"/v1/events/{eid}/standings", f"/v1/events/{eid}/rounds/1", f"/v1/matches/{match['id']}"):
        r = await api.client.get(url, headers={"If-None-Match": tags[url]})
        assert r.status_code == 200, url  # the result changed the body, so the tag
        assert r.headers["etag"] != tags[url]
    with_token = await api.client.get(f"/v1/events/{eid}/entries", headers=bearer(token))
    assert with_token.headers["cache-control"] == "private, no-cache"


async def test_a_match_tag_is_its_if_match(api: Api) -> None:
    eid, token, rnd = await _running(api)
    match = rnd["matches"][0]
    await report(api, token, match, [1, 2])
    read = await api.client.get(f"/v1/matches/{match['id']}")
    tag = read.headers["etag"]
    assert tag.startswith(f'"{read.json()["version"]}-')
    seats = [s["entry_id"] for s in match["seats"]]
    body = {
        "outcome": "played",
        "seats": [{"entry_id": seats[0], "place": 2}, {"entry_id": seats[1], "place": 1}],
    }
    r = await api.client.put(
        f"/v1/matches/{match['id']}/result", json=body, headers={**bearer(token), "If-Match": tag}
    )
    assert r.status_code == 200, r.text
    stale = await api.client.put(
        f"/v1/matches/{match['id']}/result", json=body, headers={**bearer(token), "If-Match": tag}
    )
    assert_problem(stale, 412)


async def test_every_list_pages_with_one_shape(api: Api) -> None:
    eid, token, rnd = await _running(api)
    for m in rnd["matches"]:
        if m["status"] != "bye":
            await report(api, token, m, [1, 2])
    r = await api.client.post(f"/v1/events/{eid}/rounds", headers=bearer(token))
    assert r.status_code == 201, r.text
    expected = {
        f"/v1/events/{eid}/entries": (len(NAMES), "id"),
        f"/v1/events/{eid}/rounds": (2, "number"),
        "/v1/games": (None, "key"),
    }
    for url, (count, key) in expected.items():
        whole = (await api.client.get(url, params={"limit": 500})).json()
        assert set(whole) == {"items", "next_cursor"} and whole["next_cursor"] is None
        if count is not None:
            assert len(whole["items"]) == count
        seen: list[Any] = []
        cursor = None
        for _ in range(50):
            params: dict[str, Any] = {"limit": 2, **({"cursor": cursor} if cursor else {})}
            page = await api.client.get(url, params=params)
            assert page.status_code == 200, page.text
            seen += [i[key] for i in page.json()["items"]]
            cursor = page.json()["next_cursor"]
            if cursor is None:
                break
        assert seen == [i[key] for i in whole["items"]], url
        for bad in ("!!!", "eyJubyI6MX0", "x" * 501):
            assert_problem(await api.client.get(url, params={"cursor": bad}), 422)
        assert_problem(await api.client.get(url, params={"limit": 0}), 422)
        assert_problem(await api.client.get(url, params={"limit": 501}), 422)
    history = (await api.client.get(f"/v1/events/{eid}/history")).json()
    assert set(history) == {"items", "next_cursor"}


async def test_a_job_answers_the_result_its_kind_declares(api: Api) -> None:
    eid, token, _ = await _running(api)
    r = await api.client.post(f"/v1/events/{eid}/integrity-check", headers=bearer(token))
    assert r.status_code == 202, r.text
    await api.drain_jobs()
    job = (await api.client.get(r.headers["location"])).json()
    assert job["status"] == "done" and job["kind"] == "integrity_check", job
    spec = (await api.client.get("/openapi.json")).json()
    schemas = spec["components"]["schemas"]
    assert (
        "`integrity_check` → `IntegrityResult`" in schemas["JobRead"]["properties"]["result"]["description"]
    )
    answer = jsonschema_rs.validator_for(
        {"$ref": "#/components/schemas/IntegrityResult", "components": {"schemas": schemas}}
    )
    assert answer.is_valid(job["result"]), [e.message for e in answer.iter_errors(job["result"])]
    assert not answer.is_valid({**job["result"], "ok": "yes"})


async def test_a_rounds_pairing_answers_its_declared_shape(api: Api) -> None:
    spec = (await api.client.get("/openapi.json")).json()
    schemas = spec["components"]["schemas"]

    def valid(name: str, value: Any) -> list[str]:
        v = jsonschema_rs.validator_for(
            {"$ref": f"#/components/schemas/{name}", "components": {"schemas": schemas}}
        )
        return [e.message for e in v.iter_errors(value)]

    _, _, two = await _running(api)
    assert two["pairing"]["pairs"] and valid("SwissExplanation", two["pairing"]) == []
    eid, token, _ = await setup_event(
        api,
        [f"P{i}" for i in range(8)],
        settings={"stages": [{"format": "swiss", "rounds": 2, "table_size": 4}]},
    )
    four = (await start(api, eid, token))["round"]
    assert four["pairing"]["method"] == "tables" and valid("TablesExplanation", four["pairing"]) == []
    assert valid("SwissExplanation", four["pairing"]) != []  # the shapes tell apart
