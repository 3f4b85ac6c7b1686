"""An event's staff (api.md "Staff"), on Postgres and on the SQLite default: the organizer names a
scorekeeper and a judge, each signs in with its own token and does what its role may — and is
refused, naming the permission, what it may not; every change is kept under its name; a revoked
token is refused from then on."""

from __future__ import annotations

from typing import Any

from tests.support.api import Api, assert_problem, bearer, report, setup_event, start

PLAYERS = ["Ada", "Bea", "Cy", "Di"]


async def _running(api: Api) -> tuple[str, str, dict[str, dict[str, Any]], dict[str, Any]]:
    event_id, org, entries = await setup_event(
        api, PLAYERS, settings={"stages": [{"format": "swiss", "rounds": 2}]}
    )
    first = (await start(api, event_id, org))["round"]
    return event_id, org, entries, first


async def _name(api: Api, event_id: str, org: str, name: str, role: str) -> dict[str, Any]:
    r = await api.client.post(
        f"/v1/events/{event_id}/staff", json={"name": name, "role": role}, headers=bearer(org)
    )
    assert r.status_code == 201, r.text
    assert r.headers["location"] == f"/v1/events/{event_id}/staff/{r.json()['id']}"
    return r.json()


def _seats(match: dict[str, Any], *places: int) -> dict[str, Any]:
    return {
        "seats": [
            {"entry_id": s["entry_id"], "place": p} for s, p in zip(match["seats"], places, strict=True)
        ]
    }


async def test_the_organizer_names_lists_and_revokes_staff(api: Api) -> None:
    event_id, org, entries, first = await _running(api)
    keeper = await _name(api, event_id, org, "Kim", "scorekeeper")
    judge = await _name(api, event_id, org, "Jo", "judge")
    assert keeper["role"] == "scorekeeper" and keeper["actor"] == f"staff:{keeper['id']}"
    assert keeper["token"] and keeper["token"] != judge["token"] and not keeper["revoked"]

    listed = (await api.client.get(f"/v1/events/{event_id}/staff", headers=bearer(org))).json()
    assert [(m["name"], m["role"]) for m in listed["items"]] == [("Kim", "scorekeeper"), ("Jo", "judge")]
    assert all("token" not in m for m in listed["items"])  # shown once

    # only the organizer (or the admin) names, lists and revokes staff
    for token in (keeper["token"], judge["token"], entries["Ada"]["entry_token"]):
        assert_problem(
            await api.client.post(
                f"/v1/events/{event_id}/staff", json={"name": "X", "role": "judge"}, headers=bearer(token)
            ),
            403,
        )
        assert_problem(await api.client.get(f"/v1/events/{event_id}/staff", headers=bearer(token)), 403)
    assert_problem(await api.client.get(f"/v1/events/{event_id}/staff"), 401)
    r = await api.client.get(f"/v1/events/{event_id}/staff", headers=api.admin())
    assert len(r.json()["items"]) == 2

    # bad input names the field and changes nothing
    for body, field in (({"name": "X", "role": "referee"}, "role"), ({"name": "", "role": "judge"}, "name")):
        problem = assert_problem(
            await api.client.post(f"/v1/events/{event_id}/staff", json=body, headers=bearer(org)), 422
        )
        assert field in str(problem["errors"])
    assert (
        len((await api.client.get(f"/v1/events/{event_id}/staff", headers=bearer(org))).json()["items"]) == 2
    )

    # revoked: 204, the token refused from then on, the member still listed for the audit trail
    r = await api.client.delete(f"/v1/events/{event_id}/staff/{keeper['id']}", headers=bearer(org))
    assert r.status_code == 204
    r = await api.client.delete(f"/v1/events/{event_id}/staff/{keeper['id']}", headers=bearer(org))
    assert r.status_code == 204  # revoking twice changes nothing more
    match = first["matches"][0]
    r = await api.client.post(
        f"/v1/matches/{match['id']}/result", json=_seats(match, 1, 2), headers=bearer(keeper["token"])
    )
    assert "unknown token" in assert_problem(r, 401)["detail"]
    assert (await api.client.get(f"/v1/matches/{match['id']}")).json()["status"] == "pending"
    listed = (await api.client.get(f"/v1/events/{event_id}/staff", headers=bearer(org))).json()["items"]
    assert [m["revoked"] for m in listed] == [True, False] and listed[0]["revoked_at"]
    assert_problem(await api.client.delete(f"/v1/events/{event_id}/staff/nope", headers=bearer(org)), 404)

    history = (await api.client.get(f"/v1/events/{event_id}/history")).json()["items"]
    assert [(h["action"], h["actor"]) for h in history] == [
        ("staff.issued", "organizer"),
        ("staff.issued", "organizer"),
        ("staff.revoked", "organizer"),
    ]


async def test_a_scorekeeper_keeps_results_and_nothing_else(api: Api) -> None:
    event_id, org, entries, first = await _running(api)
    keeper = await _name(api, event_id, org, "Kim", "scorekeeper")
    token = keeper["token"]
    a, b = first["matches"]

    # its result is final, as the organizer's: no claim, no confirmation needed
    m = await report(api, token, a, [1, 2])
    assert m["status"] == "confirmed"
    assert [(h["action"], h["actor"]) for h in m["history"]] == [("report", f"staff:{keeper['id']}")]

    # players' agreeing claims wait for no one here; a dispute is the scorekeeper's to rule on
    p1, p2 = (next(e for e in entries.values() if e["id"] == s["entry_id"]) for s in b["seats"])
    await report(api, p1["entry_token"], b, [1, 2])
    disputed = await report(api, p2["entry_token"], b, [2, 1])
    assert disputed["status"] == "disputed"
    r = await api.client.put(
        f"/v1/matches/{b['id']}/result",
        json=_seats(b, 2, 1),
        headers={**bearer(token), "If-Match": f'"{disputed["version"]}"'},
    )
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "confirmed" and r.json()["history"][-1]["actor"] == f"staff:{keeper['id']}"

    # and corrects a confirmed result
    r = await api.client.put(
        f"/v1/matches/{a['id']}/result",
        json=_seats(a, 2, 1),
        headers={**bearer(token), "If-Match": f'"{m["version"]}"'},
    )
    assert r.status_code == 200 and r.json()["history"][-1]["action"] == "correction"

    # what it may not: refused, naming what the action takes; nothing changes
    round_before = (await api.client.get(f"/v1/events/{event_id}/rounds/1")).json()
    refusals = [
        ("POST", f"/v1/events/{event_id}/rounds", None),
        ("DELETE", f"/v1/events/{event_id}/rounds/1", None),
        ("POST", f"/v1/events/{event_id}/advance", None),
        ("POST", f"/v1/events/{event_id}/cancel", None),
        ("POST", f"/v1/events/{event_id}/entries", {"name": "Late"}),
        ("DELETE", f"/v1/events/{event_id}/entries/{entries['Ada']['id']}", None),
        ("POST", f"/v1/events/{event_id}/rounds/1/swap", {"entries": [p1["id"], p2["id"]]}),
    ]
    for method, path, body in refusals:
        r = await api.client.request(method, path, json=body, headers=bearer(token))
        problem = assert_problem(r, 403)
        assert "scorekeeper" in problem["detail"], (path, problem)
    r = await api.client.request(
        "PATCH", f"/v1/events/{event_id}", json={"name": "Mine"}, headers={**bearer(token), "If-Match": '"1"'}
    )
    assert "the organizer of this event" in assert_problem(r, 403)["detail"]
    assert (await api.client.get(f"/v1/events/{event_id}/rounds/1")).json() == round_before
    entries_now = (await api.client.get(f"/v1/events/{event_id}/entries")).json()["items"]
    assert all(e["status"] == "active" for e in entries_now) and len(entries_now) == 4


async def test_a_judge_also_drops_and_swaps(api: Api) -> None:
    event_id, org, entries, first = await _running(api)
    judge = await _name(api, event_id, org, "Jo", "judge")
    token = judge["token"]
    a, b = first["matches"]
    x, y = a["seats"][0]["entry_id"], b["seats"][0]["entry_id"]
    r = await api.client.post(
        f"/v1/events/{event_id}/rounds/1/swap", json={"entries": [x, y]}, headers=bearer(token)
    )
    assert r.status_code == 200, r.text
    swapped = {s["entry_id"] for m in r.json()["matches"] for s in m["seats"] if m["id"] == a["id"]}
    assert y in swapped and x not in swapped
    r = await api.client.delete(f"/v1/events/{event_id}/entries/{entries['Di']['id']}", headers=bearer(token))
    assert r.status_code == 200 and r.json()["status"] == "dropped"
    history = (await api.client.get(f"/v1/events/{event_id}/history")).json()["items"]
    assert ("swap", f"staff:{judge['id']}") in [(h["action"], h["actor"]) for h in history]
    # but pairs, undoes and advances no more than a scorekeeper
    for method, path in (
        ("POST", f"/v1/events/{event_id}/rounds"),
        ("POST", f"/v1/events/{event_id}/advance"),
    ):
        assert (
            "judge"
            in assert_problem(await api.client.request(method, path, headers=bearer(token)), 403)["detail"]
        )


async def test_staff_act_in_their_own_event_only(api: Api) -> None:
    event_id, org, _, _ = await _running(api)
    other_id, other_org, _, other_first = await _running(api)
    judge = await _name(api, event_id, org, "Jo", "judge")
    r = await api.client.post(
        f"/v1/matches/{other_first['matches'][0]['id']}/result",
        json=_seats(other_first["matches"][0], 1, 2),
        headers=bearer(judge["token"]),
    )
    assert "another event" in assert_problem(r, 403)["detail"]
    r = await api.client.post(
        f"/v1/events/{other_id}/rounds/1/swap",
        json={"entries": [s["entry_id"] for s in other_first["matches"][0]["seats"]]},
        headers=bearer(judge["token"]),
    )
    assert_problem(r, 403)
    # a staff token names no staff of another event either
    assert_problem(
        await api.client.delete(f"/v1/events/{other_id}/staff/{judge['id']}", headers=bearer(other_org)), 404
    )
