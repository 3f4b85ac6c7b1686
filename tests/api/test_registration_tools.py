"""Registration as organizers expect it: in bulk (JSON lists and CSV, all or nothing), seeds and
ratings, check-in, identity matching, cancelling and deleting an event."""

from __future__ import annotations

from tests.support.api import (
    Api,
    add_entry,
    assert_problem,
    bearer,
    make_event,
    setup_event,
    start,
)


async def test_bulk_json_list_registers_every_row(api: Api) -> None:
    event, token = await make_event(api)
    rows = [{"name": "Ada", "rating": 1800, "club": "Hackers"}, {"name": "Grace", "seed": 1}]
    r = await api.client.post(f"/v1/events/{event['id']}/entries", json=rows, headers=bearer(token))
    assert r.status_code == 201, r.text
    made = r.json()
    assert [e["name"] for e in made] == ["Ada", "Grace"]
    assert made[0]["rating"] == 1800 and made[0]["club"] == "Hackers" and made[1]["seed"] == 1
    assert all(e["entry_token"] for e in made)
    listed = (await api.client.get(f"/v1/events/{event['id']}/entries")).json()["items"]
    assert len(listed) == 2


async def test_csv_registration_and_a_bad_file_changes_nothing(api: Api) -> None:
    """A CSV is a form upload of its own operation (the file, or its text as a plain field), and the
    registration route still takes it as a ``text/csv`` body (docs/api.md "Entries")."""
    event, token = await make_event(api)
    url = f"/v1/events/{event['id']}/entries"
    bad = "name,rating,seed,team\nAda,1850,1,Hackers\nGrace,lots,2,\n,1700,,\nAlan,1600,0,\n"
    sent = await api.client.post(
        f"{url}/csv", files={"file": ("players.csv", bad, "text/csv")}, headers=bearer(token)
    )
    body = assert_problem(sent, 422)
    locs = {tuple(e["loc"][:2]) for e in body["errors"]}
    assert locs == {("csv", 3), ("csv", 4), ("csv", 5)}, body["errors"]
    assert "3 bad row(s)" in body["detail"]
    assert (await api.client.get(url)).json()["items"] == []  # all or nothing
    empty = assert_problem(
        await api.client.post(f"{url}/csv", data={"other": "x"}, headers=bearer(token)), 422
    )
    assert empty["errors"][0]["loc"] == ["body", "file"]

    good = (
        "name,external_id,rating,seed,club,characters\nAda,FIDE-1,1850,1,Hackers,Red|Blue\nGrace,,1700,2,,\n"
    )
    r = await api.client.post(url, content=good, headers={**bearer(token), "Content-Type": "text/csv"})
    assert r.status_code == 201, r.text
    ada = r.json()[0]
    assert ada["club"] == "Hackers" and ada["characters"] == ["Red", "Blue"] and ada["seed"] == 1
    player = (await api.client.get(f"/v1/players/{ada['player_id']}")).json()
    assert player["external_id"] == "FIDE-1"
    plain = await api.client.post(
        f"{url}/csv", data={"file": "name,club\nAlan,Bletchley\n"}, headers=bearer(token)
    )
    assert plain.status_code == 201 and [(e["name"], e["club"]) for e in plain.json()] == [
        ("Alan", "Bletchley")
    ]


async def test_bulk_names_duplicates_and_players_already_entered(api: Api) -> None:
    event_id, token, _ = await setup_event(api, ["Ada"])
    rows = [
        {"name": "Bob", "seed": 1},
        {"name": "ＡＤＡ"},
        {"name": "bob"},
        {"name": "Eve", "characters": ["x", "x"]},
        {"name": "Fay", "seed": 1},
    ]
    r = await api.client.post(f"/v1/events/{event_id}/entries", json=rows, headers=bearer(token))
    body = assert_problem(r, 422)
    bad = {e["loc"][1] for e in body["errors"]}
    assert bad == {1, 2, 3, 4}, body["errors"]
    assert len((await api.client.get(f"/v1/events/{event_id}/entries")).json()["items"]) == 1


async def test_unknown_csv_column_and_not_json(api: Api) -> None:
    event, token = await make_event(api)
    url = f"/v1/events/{event['id']}/entries"
    r = await api.client.post(
        url, content="nom,rating\nAda,1\n", headers={**bearer(token), "Content-Type": "text/csv"}
    )
    assert_problem(r, 422)
    r = await api.client.post(
        url, content="{nope", headers={**bearer(token), "Content-Type": "application/json"}
    )
    assert_problem(r, 422)
    r = await api.client.post(url, json=[{"name": "A", "colour": "red"}], headers=bearer(token))
    body = assert_problem(r, 422)
    assert body["errors"][0]["loc"][:2] == ["rows", 0]


async def test_seeds_order_a_seeded_bracket(api: Api) -> None:
    entries = {"Ada": {"seed": 4}, "Bob": {"seed": 1}, "Cy": {"seed": 3}, "Di": {"seed": 2}}
    event_id, token, made = await setup_event(
        api, entries, settings={"stages": [{"format": "single_elimination", "method": "seeded"}]}
    )
    rnd = (await start(api, event_id, token))["round"]
    tables = [[s["name"] for s in m["seats"]] for m in rnd["matches"]]
    assert tables == [["Bob", "Ada"], ["Di", "Cy"]]  # 1–4, 2–3


async def test_ratings_pair_a_first_round_by_rating(api: Api) -> None:
    entries = {n: {"rating": r} for n, r in [("Ada", 1500), ("Bob", 2000), ("Cy", 1800), ("Di", 1900)]}
    event_id, token, _ = await setup_event(
        api,
        entries,
        settings={
            "stages": [{"format": "swiss", "rounds": 2, "first_round": "rating", "seat_balance": False}]
        },
    )
    rnd = (await start(api, event_id, token))["round"]
    assert [[s["name"] for s in m["seats"]] for m in rnd["matches"]] == [["Bob", "Di"], ["Cy", "Ada"]]


async def test_check_in_drops_or_refuses_the_absent(api: Api) -> None:
    event_id, token, made = await setup_event(api, ["Ada", "Bob", "Cy", "Di"], settings={"check_in": True})
    url = f"/v1/events/{event_id}/entries"
    for name in ("Ada", "Bob"):
        r = await api.client.post(f"{url}/{made[name]['id']}/check-in", headers=bearer(token))
        assert r.status_code == 200 and r.json()["checked_in"] is True
    own = made["Cy"]["entry_token"]
    r = await api.client.post(f"{url}/{made['Cy']['id']}/check-in", headers=bearer(own))
    assert r.status_code == 200, r.text
    other = await api.client.post(f"{url}/{made['Di']['id']}/check-in", headers=bearer(own))
    assert_problem(other, 403)
    refused = await api.client.post(
        f"/v1/events/{event_id}/start?not_checked_in=refuse", headers=bearer(token)
    )
    assert "Di" in assert_problem(refused, 409)["detail"]
    assert (await api.client.get(f"/v1/events/{event_id}")).json()["status"] == "registration"
    await start(api, event_id, token)
    rows = {e["name"]: e for e in (await api.client.get(url)).json()["items"]}
    assert rows["Di"]["status"] == "dropped" and rows["Ada"]["status"] == "active"
    history = (await api.client.get(f"/v1/events/{event_id}/history")).json()["items"]
    assert history[-1]["action"] == "check_in_drop" and history[-1]["payload"]["names"] == ["Di"]


async def test_check_in_needs_the_setting(api: Api) -> None:
    event_id, token, made = await setup_event(api, ["Ada"])
    r = await api.client.post(
        f"/v1/events/{event_id}/entries/{made['Ada']['id']}/check-in", headers=bearer(token)
    )
    assert_problem(r, 409)


async def test_identity_is_matched_by_normalized_name_and_external_id(api: Api) -> None:
    first, t1, made1 = await setup_event(api, ["Ada Lovelace", "Grace"])
    second, t2 = await make_event(api, name="Second")
    again = await add_entry(api, second["id"], t2, "  ＡＤＡ   lovelace ", external_id="CLUB-1")
    assert again["player_id"] == made1["Ada Lovelace"]["player_id"] and again["matched_by"] == "name"
    tagged = await add_entry(api, second["id"], t2, "grace", external_id="CLUB-7")
    assert tagged["player_id"] == made1["Grace"]["player_id"]
    third, t3 = await make_event(api, name="Third")
    # the external id wins over a different name
    renamed = await add_entry(api, third["id"], t3, "Grace Hopper", external_id="CLUB-7")
    assert renamed["player_id"] == made1["Grace"]["player_id"] and renamed["matched_by"] == "external_id"
    # a different external id is another person of the same name
    other = await add_entry(api, third["id"], t3, "Ada Lovelace", external_id="CLUB-9")
    assert other["player_id"] != made1["Ada Lovelace"]["player_id"] and other["matched_by"] == "new"


async def test_organizer_sees_and_undoes_an_identity_match(api: Api) -> None:
    first, _, made1 = await setup_event(api, ["Ada"])
    second, t2 = await make_event(api, name="Second")
    entry = await add_entry(api, second["id"], t2, "ada")
    url = f"/v1/events/{second['id']}/entries/{entry['id']}/identity"
    seen = (await api.client.get(url, headers=bearer(t2))).json()
    assert seen["matched_by"] == "name" and [e["event_id"] for e in seen["other_events"]] == [first]
    r = await api.client.delete(url, headers=bearer(t2))
    assert r.status_code == 200, r.text
    split = r.json()
    assert split["player_id"] != made1["Ada"]["player_id"] and split["other_events"] == []
    history = (await api.client.get(f"/v1/events/{second['id']}/history")).json()["items"]
    assert history[0]["action"] == "identity_split"
    assert history[0]["payload"]["from_player"] == made1["Ada"]["player_id"]
    assert_problem(await api.client.delete(url, headers=bearer(t2)), 409)  # nothing left to undo


async def test_cancel_and_delete(api: Api) -> None:
    event_id, token, _ = await setup_event(api, ["Ada", "Bob"])
    r = await api.client.delete(f"/v1/events/{event_id}", headers=bearer(token))
    assert r.status_code == 204
    assert_problem(await api.client.get(f"/v1/events/{event_id}"), 404)

    event_id, token, _ = await setup_event(api, ["Ada", "Bob"])
    await start(api, event_id, token)
    assert_problem(await api.client.delete(f"/v1/events/{event_id}", headers=bearer(token)), 409)
    r = await api.client.post(f"/v1/events/{event_id}/cancel", headers=bearer(token))
    assert r.status_code == 200 and r.json()["status"] == "cancelled"
    assert_problem(await api.client.post(f"/v1/events/{event_id}/rounds", headers=bearer(token)), 409)
    assert_problem(await api.client.post(f"/v1/events/{event_id}/cancel", headers=bearer(token)), 409)
    history = (await api.client.get(f"/v1/events/{event_id}/history")).json()["items"]
    assert history[-1]["action"] == "cancel"
