"""Rite of Command's stateless endpoints through HTTP, on Postgres and on the SQLite default."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tests.support.api import Api, assert_problem

DEAL = "/v1/rite-of-command/deal"
ADJUDICATE = "/v1/adjudicate/rite-of-command"


def record_from(deal: dict[str, Any]) -> dict[str, Any]:
    plays, turn = [], deal["first_player"]
    for i in range(2 * len(deal["cards"])):
        plays.append({"player": turn, "ring": i % 3 + 1})
        turn = 3 - turn
    return {"deal": deal, "first_player": deal["first_player"], "plays": plays}


async def test_deal(api: Api) -> None:
    r = await api.client.post(DEAL, json={"deck_size": 9, "seed": "duel-1"})
    assert r.status_code == 200, r.text
    deal = r.json()
    assert len(deal["cards"]) == 9 and deal["first_player"] in (1, 2) and deal["seed"] == "duel-1"
    assert Counter(deal["orders"]["1"]) == Counter(deal["orders"]["2"]) == Counter(deal["cards"])
    again = await api.client.post(DEAL, json={"deck_size": 9, "seed": "duel-1"})
    assert again.json() == deal
    fresh = (await api.client.post(DEAL, json={"deck_size": 3})).json()
    assert fresh["seed"] and len(fresh["orders"]["2"]) == 3
    own = {"soldiers": [{"name": "A", "power": [1, 1]}], "weapons": []}
    r = await api.client.post(DEAL, json={"deck_size": 2, "seed": "x", "catalog": own})
    assert r.json()["orders"] == {"1": ["A", "A"], "2": ["A", "A"]}
    assert_problem(await api.client.post(DEAL, json={"deck_size": 0}), 422)


async def test_adjudicate_by_rings(api: Api) -> None:
    body = {
        "rings": [
            [
                {"card": "Shield bearer", "owner": 1},
                {"card": "Mace bearer", "owner": 2},
                {"card": "Club", "owner": 2},
                {"card": "Sword", "owner": 1},
                {"card": "Divine Staff", "owner": 2},
            ],
            [{"card": "Priest of Osiris", "owner": 1}, {"card": "Priest of Osiris", "owner": 2}],
            [],
        ],
        "wagers": {"1": 10, "2": 10},
    }
    r = await api.client.post(ADJUDICATE, json=body)
    assert r.status_code == 200, r.text
    out = r.json()
    first = out["rings"][0]
    assert [(a["soldier"], a["owner"], a["weapons"]) for a in first["armed"]] == [
        ("Shield bearer", 1, ["Club"]),
        ("Mace bearer", 2, ["Divine Staff"]),
    ]
    # sample values: Shield bearer 3 + Club 2 = 5; Mace bearer 2 + Divine Staff 1 (not a priest) = 3
    assert first["fights"] == [
        {
            "p1": "Shield bearer",
            "p2": "Mace bearer",
            "p1_power": 5,
            "p2_power": 3,
            "winner": 1,
            "p1_position": 0,
            "p2_position": 1,
        }
    ]
    assert first["winner"] == 1
    # priest against priest: 0 against 0, the leftmost (player 1's) wins
    assert out["rings"][1]["fights"][0]["winner"] == 1 and out["rings"][1]["winner"] == 1
    assert out["rings"][2] == {"ring": 3, "armed": [], "fights": [], "winner": None}
    assert out["winner"] == 1
    assert out["wagers"]["payouts"] == {"1": 20, "2": 0}
    no_wagers = (await api.client.post(ADJUDICATE, json={"rings": body["rings"]})).json()
    assert "wagers" not in no_wagers and no_wagers["winner"] == 1


async def test_adjudicate_by_full_record(api: Api) -> None:
    deal = (await api.client.post(DEAL, json={"deck_size": 6, "seed": "record"})).json()
    record = record_from(deal)
    r = await api.client.post(ADJUDICATE, json=record)
    assert r.status_code == 200, r.text
    verdict = r.json()
    rings: list[list[dict[str, Any]]] = [[], [], []]
    tops = {1: list(deal["orders"]["1"]), 2: list(deal["orders"]["2"])}
    for play in record["plays"]:
        rings[play["ring"] - 1].append({"card": tops[play["player"]].pop(0), "owner": play["player"]})
    assert (await api.client.post(ADJUDICATE, json={"rings": rings})).json() == verdict
    redealt = {**record, "deal": {"deck_size": 6, "seed": "record"}}
    assert (await api.client.post(ADJUDICATE, json=redealt)).json() == verdict
    # the orders with no seed to deal again from stand as given, a deck_size beside them or not
    unseeded = {**record, "deal": {**deal, "seed": None}}
    assert (await api.client.post(ADJUDICATE, json=unseeded)).json() == verdict
    # given both, the orders must be the ones that seed deals
    other = (await api.client.post(DEAL, json={"deck_size": 6, "seed": "another"})).json()
    mixed = {**record, "deal": {**deal, "seed": "another"}}
    assert other["orders"] != deal["orders"]
    assert_problem(await api.client.post(ADJUDICATE, json=mixed), 422)


async def test_bad_input_names_the_problem(api: Api) -> None:
    unknown = {"rings": [[{"card": "Dragon", "owner": 1}], [], []]}
    body = assert_problem(await api.client.post(ADJUDICATE, json=unknown), 422)
    assert "Dragon" in body["detail"] and body["errors"][0]["loc"] == ["rings", 0, 0, "card"]

    deal = (await api.client.post(DEAL, json={"deck_size": 4, "seed": "bad"})).json()
    record = record_from(deal)
    plays = record["plays"]

    bad_ring = [plays[0], {**plays[1], "ring": 4}, *plays[2:]]
    body = assert_problem(await api.client.post(ADJUDICATE, json={**record, "plays": bad_ring}), 422)
    assert body["errors"][0]["loc"] == ["plays", 1, "ring"] and "out of range" in body["detail"]

    out_of_turn = [plays[0], {**plays[1], "player": plays[0]["player"]}, *plays[2:]]
    body = assert_problem(await api.client.post(ADJUDICATE, json={**record, "plays": out_of_turn}), 422)
    assert "plays[1]" in body["detail"] and "out of turn" in body["detail"]

    first = deal["first_player"]
    order = deal["orders"][str(first)]
    wrong = next(c for c in deal["cards"] if c != order[0]) if len(set(order)) > 1 else "Dragon"
    not_top = [{**plays[0], "card": wrong}, *plays[1:]]
    body = assert_problem(await api.client.post(ADJUDICATE, json={**record, "plays": not_top}), 422)
    assert "plays[0]" in body["detail"] and "not the top card" in body["detail"]

    catalog = {
        "soldiers": [{"name": "Archer", "hands": ["bow"], "power": [2, 2]}],
        "weapons": [{"name": "Club", "type": "blunt", "power": [1, 1]}],
    }
    body = assert_problem(
        await api.client.post(ADJUDICATE, json={"catalog": catalog, "rings": [[], [], []]}), 422
    )
    assert body["errors"] == [
        {"loc": ["catalog", "soldiers", 0, "hands", 0], "msg": "no weapon has the type 'bow'"}
    ]
    assert "bow" in body["detail"]
    body = assert_problem(await api.client.post(DEAL, json={"deck_size": 3, "catalog": catalog}), 422)
    assert "bow" in body["detail"]


async def test_types_are_strict_true_is_not_a_number_and_a_string_is_not_an_integer(api: Api) -> None:
    """`deck_size: true` would deal one card and `owner: "1"` would be player 1: both are 422s, as
    are a `true` card power or a `"3"` ring, naming the field."""
    body = assert_problem(await api.client.post(DEAL, json={"deck_size": True}), 422)
    assert body["errors"][0]["loc"] == ["body", "deck_size"]
    body = assert_problem(await api.client.post(DEAL, json={"deck_size": "3"}), 422)
    assert body["errors"][0]["loc"] == ["body", "deck_size"]
    rings = {"rings": [[{"card": "Club", "owner": "1"}], [], []]}
    body = assert_problem(await api.client.post(ADJUDICATE, json=rings), 422)
    assert body["errors"][0]["loc"] == ["body", "rings", 0, 0, "owner"]
    deal = (await api.client.post(DEAL, json={"deck_size": 2, "seed": "strict"})).json()
    record = record_from(deal)
    record["plays"][0] = {**record["plays"][0], "ring": "1"}
    body = assert_problem(await api.client.post(ADJUDICATE, json=record), 422)
    assert body["errors"][0]["loc"] == ["body", "plays", 0, "ring"]
    stakes = {"rings": [[], [], []], "wagers": {"1": True, "2": 10}}
    body = assert_problem(await api.client.post(ADJUDICATE, json=stakes), 422)
    assert body["errors"][0]["loc"][:3] == ["body", "wagers", "1"]


async def test_a_catalog_with_a_shape_error_still_lists_every_semantic_problem(api: Api) -> None:
    """A bad catalog is refused with every problem listed, in document order: a shape error (a
    power that is not two whole numbers) does not hide the duplicate name or the hand no weapon fits."""
    catalog = {
        "soldiers": [
            {"name": "Archer", "hands": ["bow"], "power": [2, True]},
            {"name": "Club", "power": [1, 1]},
        ],
        "weapons": [{"name": "Club", "type": "blunt", "power": [1, 1]}],
    }
    for url, extra in ((ADJUDICATE, {"rings": [[], [], []]}), (DEAL, {"deck_size": 2})):
        body = assert_problem(await api.client.post(url, json={"catalog": catalog, **extra}), 422)
        assert [e["loc"] for e in body["errors"]] == [
            ["catalog", "soldiers", 0, "power"],
            ["catalog", "soldiers", 0, "hands", 0],
            ["catalog", "weapons", 0, "name"],
        ]
