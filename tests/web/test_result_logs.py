"""Results of the kinds no other walk enters, in Chromium, each on an event made through the API
and checked against it: a WBC heat of Titan: The Arena recorded from its game log pasted in the
console (a tie split by the bets on the last creature to die) and another from a log uploaded as a
file (its players named by entry id, a tie split by the last play), each verdict said in words
before it is recorded; a Battle Royal table's record refused in words and names (a seat acting out
of turn) with the pasted record kept, then judged and recorded; a BATTLEBOOKS differential typed
on the console — one that contradicts the body points refused naming the player, the loser's
then recorded — with the public standings' Differential column read against the API; and a game
scored by its own score (``game_score``) reported from a player's page and the slip's page. The
verdicts' words — these two's and a Rite of Command duel's — and every adjudicator's name are then
checked in English and Japanese without a browser."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from app.core.games import battlebooks_royal, rite_of_command, titan_arena
from app.core.games.registry import ADJUDICATORS
from app.services.presets import battlebooks_royal as battle_royal_rules
from app.web import verdicts
from app.web.i18n import translator
from tests.support.rite_of_command import RINGS
from tests.web.conftest import UUID, api, reloaded, submit
from tests.web.test_accessibility import _axe
from tests.web.test_battlebooks_console import _standings_checked
from tests.web.test_formats_players import PHONE, _event, _matches, _phone, _said


@pytest.fixture(scope="module")
def desk(browser: Any) -> Iterator[Any]:
    """The organizer's browser for the module: one context, a console per event signed in again
    (its pages let axe-core's script in, which their CSP would not)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US", bypass_csp=True)
    context.set_default_timeout(10_000)
    yield context
    context.close()


def _signed_in(desk: Any, server: str, ev: dict[str, Any]) -> Any:
    page = desk.new_page()
    page.goto(f"{server}/console")
    page.fill("#org-token", ev["organizer"])
    submit(page, page.get_by_role("button", name="Sign in"))
    return page


def _by_seat(m: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(m["seats"], key=lambda s: s["seat"])


def _log_form(page: Any, match_id: str) -> Any:
    row = page.locator(f"#m-{match_id}")
    if row.locator("details.game-log").get_attribute("open") is None:
        row.locator("summary", has_text="Game log").click()
    return row


def _verdict_places(page: Any) -> dict[str, int]:
    rows = page.locator("table.verdict tbody tr")
    return {
        rows.nth(i).locator("td").nth(1).inner_text(): int(rows.nth(i).locator("td").nth(0).inner_text())
        for i in range(rows.count())
    }


def _in_words(page: Any, axe: bool = False) -> None:
    """The verdict page says its verdict in words: no JSON, no id (and, with ``axe``, axe-core
    finds nothing on it)."""
    shown = page.inner_text("main")
    assert page.locator("pre.verdict-json").count() == 0 and "{" not in shown, shown
    assert not UUID.search(shown), shown
    if axe:
        found, _ = _axe(page)
        assert found == [], found


def _recorded(page: Any, client: Any, ev: dict[str, Any], match_id: str) -> dict[str, Any]:
    """The verdict shown, nothing recorded yet; "Record this result": the match as the API has it."""
    assert "Nothing is recorded yet" in page.inner_text("#h-verdict + p")
    assert client.get(f"/v1/matches/{match_id}").json()["status"] == "pending"
    submit(page, page.get_by_role("button", name="Record this result"))
    reloaded(page, client, ev["id"])
    got = client.get(f"/v1/matches/{match_id}").json()
    assert got["status"] == "confirmed", got
    return dict(got)


def _result_by_name(got: dict[str, Any], key: str) -> dict[str, Any]:
    names = {s["entry_id"]: s["name"] for s in got["seats"]}
    return {names[s["entry_id"]]: s[key] for s in got["result"]["seats"]}


# --------------------------------------------------------------------------- Titan: The Arena
ARENA = ["Anne", "Louis", "Hatshepsut", "Kaori", "Ben", "Cleo"]


def _seed_example(players: list[str]) -> dict[str, Any]:
    """titan-arena.md's worked example: Louis and Hatshepsut tie on 9; the Unicorn died last, and
    Louis had 3 points on it, Hatshepsut none. ``players`` in any order."""
    return {
        "players": players,
        "scores": {"Anne": 12, "Louis": 9, "Hatshepsut": 9},
        "deaths": [
            {"creature": "Troll", "killed_by": "Anne"},
            {"creature": "Wyrm"},
            {"creature": "Unicorn", "killed_by": "Louis"},
        ],
        "bets": [
            {"player": "Louis", "creature": "Unicorn", "points": 3},
            {"player": "Hatshepsut", "creature": "Wyrm", "points": 4},
            {"player": "Anne", "creature": "Troll", "points": 2, "secret": True},
        ],
    }


def _last_play(ids: dict[str, str]) -> dict[str, Any]:
    """Kaori and Ben level on 10 at the top; the original rule: Ben made the last play. The
    players named by entry id, the scores a list in the log's order."""
    return {
        "players": [ids["Cleo"], ids["Kaori"], ids["Ben"]],
        "scores": [4, 10, 10],
        "tie_rule": "last_play",
        "last_play": ids["Ben"],
        "deaths": [{"creature": "Cyclops", "killed_by": ids["Kaori"]}],
        "bets": [],
    }


def test_wbc_heats_are_recorded_from_a_pasted_and_an_uploaded_game_log(server: str, desk: Any) -> None:
    client = api(server)
    ev = _event(client, "wbc-hmwp", "titan-the-arena", ARENA)
    heats = [[ev["ids"][n] for n in ARENA[:3]], [ev["ids"][n] for n in ARENA[3:]]]
    opened = client.post(f"/v1/events/{ev['id']}/rounds", json={"tables": heats}, headers=ev["org"])
    assert opened.status_code in (200, 201), opened.text
    first, second = sorted(_matches(client, ev["id"]), key=lambda m: m["table"])
    page = _signed_in(desk, server, ev)

    # the seed's example pasted, its players in another order than the seats: the verdict says
    # who won, how the tie for second was broken, and what died — then it is recorded
    row = _log_form(page, first["id"])
    row.get_by_label("Paste the game log (JSON)").fill(
        json.dumps(_seed_example(["Hatshepsut", "Anne", "Louis"]))
    )
    submit(page, row.get_by_role("button", name="Show the verdict"))
    assert _verdict_places(page) == {"Anne": 1, "Louis": 2, "Hatshepsut": 3}
    assert page.inner_text("#ta-outcome") == "Anne wins with 12 points, ahead of Louis's 9."
    assert page.inner_text("#ta-ties") == (
        "Louis ranks above Hatshepsut, both on 9 points: Louis bet 3 on the Unicorn "
        "(the last creature to die), Hatshepsut 0."
    )
    assert "The creatures that died, in order: Troll, Wyrm, Unicorn." in page.inner_text("#ta-rules")
    kills = page.locator("table.ta-facts tbody tr")
    assert [kills.nth(i).inner_text().split("\t") for i in range(3)] == [
        ["1", "Anne", "12", "1"],
        ["2", "Louis", "9", "1"],
        ["3", "Hatshepsut", "9", "0"],
    ]
    _in_words(page, axe=True)
    got = _recorded(page, client, ev, first["id"])
    assert _result_by_name(got, "place") == {"Anne": 1, "Louis": 2, "Hatshepsut": 3}
    assert _result_by_name(got, "score") == {"Anne": 12, "Louis": 9, "Hatshepsut": 9}

    # the other heat's log uploaded as a file, its players named by entry id: said by name
    row = _log_form(page, second["id"])
    row.get_by_label("or choose its file").set_input_files(
        {
            "name": "heat.json",
            "mimeType": "application/json",
            "buffer": json.dumps(_last_play(ev["ids"])).encode(),
        }
    )
    submit(page, row.get_by_role("button", name="Show the verdict"))
    assert _verdict_places(page) == {"Ben": 1, "Kaori": 2, "Cleo": 3}
    assert page.inner_text("#ta-outcome") == (
        "Ben wins: level with Kaori on 10 points, and first by the tie-break below."
    )
    assert page.inner_text("#ta-ties") == "Ben ranks above Kaori, both on 10 points: Ben made the last play."
    assert page.inner_text("#ta-rules").startswith(
        "Titan: The Arena, the original rules; ties broken by the original rule (the player who made the last play)."
    )
    _in_words(page)
    got = _recorded(page, client, ev, second["id"])
    assert _result_by_name(got, "place") == {"Ben": 1, "Kaori": 2, "Cleo": 3}
    assert _result_by_name(got, "score") == {"Ben": 10, "Kaori": 10, "Cleo": 4}
    # the heats' seeding reads them: the two winners ahead
    seeding = client.get(f"/v1/events/{ev['id']}/titan-arena/semifinal").json()["seeding"]
    names = {v: k for k, v in ev["ids"].items()}
    assert sorted(names[r["entry_id"]] for r in seeding[:2]) == ["Anne", "Ben"]
    page.close()


# --------------------------------------------------------------------------- Battle Royal
ROYAL = ["Ada", "Ben", "Cleo", "Dev"]


def _royal(first: int, out_of_turn: bool = False) -> dict[str, Any]:
    """A table of four played out from the seat holding the token first (f): f knocks out f+1,
    f+2 knocks out f+3, then f knocks out f+2. ``out_of_turn``: turn 2 is f+3's instead."""
    f, g, h, k = ((first + i) % 4 for i in range(4))
    second = (k, h) if out_of_turn else (h, k)
    return {
        "first": f,
        "body_points": [30, 30, 30, 30],
        "turns": [
            {"attacker": f, "target": g, "attacker_body_points": 26, "target_body_points": 0},
            {
                "attacker": second[0],
                "target": second[1],
                "attacker_body_points": 22,
                "target_body_points": -3,
            },
            {"attacker": f, "target": h, "attacker_body_points": 20, "target_body_points": 0},
        ],
    }


def test_a_battle_royal_record_is_refused_in_names_then_judged_and_recorded(server: str, desk: Any) -> None:
    client = api(server)
    ev = _event(client, "battlebooks-battle-royal", "battlebooks", ROYAL)
    (m,) = _matches(client, ev["id"])
    seats = [s["name"] for s in _by_seat(m)]
    (f,) = [s["seat"] for s in _by_seat(m) if s["first_token"]]
    page = _signed_in(desk, server, ev)

    # a record where the wrong seat acts at turn 2: refused, the rule said with the players' names,
    # the pasted record kept, nothing recorded
    broken = json.dumps(_royal(f, out_of_turn=True))
    row = _log_form(page, m["id"])
    row.get_by_label("Paste the game log (JSON)").fill(broken)
    submit(page, row.get_by_role("button", name="Show the verdict"))
    error = page.inner_text(".error")
    holder, wrong = seats[(f + 2) % 4], seats[(f + 3) % 4]
    assert (
        f"turn 2: seat {(f + 3) % 4} ({wrong}) acts out of turn; seat {(f + 2) % 4} ({holder}) holds the token"
        in error
    ), error
    assert not UUID.search(error)
    assert page.locator(f"#log-{m['id']}").input_value() == broken
    assert client.get(f"/v1/matches/{m['id']}").json()["status"] == "pending"

    # the record put right: the verdict in words, then recorded
    row = _log_form(page, m["id"])
    row.get_by_label("Paste the game log (JSON)").fill(json.dumps(_royal(f)))
    submit(page, row.get_by_role("button", name="Show the verdict"))
    order = [seats[f], seats[(f + 2) % 4], seats[(f + 3) % 4], seats[(f + 1) % 4]]
    assert _verdict_places(page) == {n: k + 1 for k, n in enumerate(order)}
    assert (
        page.inner_text("#br-outcome") == f"{seats[f]} wins: the last one standing, with 20 body points left."
    )
    assert page.inner_text("#br-how").startswith(f"{seats[f]} held the token first; 3 turns replayed")
    facts = page.locator("table.br-facts tbody tr")
    assert [facts.nth(i).inner_text().split("\t") for i in range(4)] == [
        ["1", seats[f], "still standing", "20"],
        ["2", order[1], f"eliminated at turn 3, in {seats[f]}'s attack", "0"],
        ["3", order[2], f"eliminated at turn 2, in {order[1]}'s attack", "-3"],
        ["4", order[3], f"eliminated at turn 1, in {seats[f]}'s attack", "0"],
    ]
    _in_words(page, axe=True)
    got = _recorded(page, client, ev, m["id"])
    assert _result_by_name(got, "place") == {n: k + 1 for k, n in enumerate(order)}
    page.close()


# --------------------------------------------------------------------------- a differential typed
def test_a_differential_typed_on_the_console_is_checked_against_the_body_points(
    server: str, desk: Any
) -> None:
    client = api(server)
    ev = _event(client, "battlebooks-last-man-standing", "battlebooks", ["Ada", "Ben"])
    (m,) = _matches(client, ev["id"])
    a, b = _by_seat(m)
    page = _signed_in(desk, server, ev)

    # the winner's differential typed beside body points 8 apart: refused naming the player,
    # everything typed kept
    row = page.locator(f"#m-{m['id']}")
    row.get_by_text("Places and scores").click()
    row.locator(f"#pl-{m['id']}-0-1").check()
    row.locator(f"#pl-{m['id']}-1-2").check()
    typed = {
        f"{a['name']}: Body points": "30",
        f"{b['name']}: Body points": "22",
        f"{a['name']}: Differential": "5",
    }
    for label, value in typed.items():
        row.get_by_label(label, exact=True).fill(value)
    submit(page, row.get_by_role("button", name="Record the places"))
    error = page.inner_text(".error")
    assert f"{a['name']}'s differential, 5, contradicts the body points, 8 apart" in error, error
    assert not UUID.search(error)
    row = page.locator(f"#m-{m['id']}")
    for label, value in typed.items():
        assert row.get_by_label(label, exact=True).input_value() == value
    assert client.get(f"/v1/matches/{m['id']}").json()["status"] == "pending"

    # the winner's cleared, the loser's typed: the other seat takes its opposite
    row.get_by_label(f"{a['name']}: Differential", exact=True).fill("")
    row.get_by_label(f"{b['name']}: Differential", exact=True).fill("-8")
    submit(page, row.get_by_role("button", name="Record the places"))
    reloaded(page, client, ev["id"])
    got = client.get(f"/v1/matches/{m['id']}").json()
    assert got["status"] == "confirmed", got
    assert _result_by_name(got, "differential") == {a["name"]: 8, b["name"]: -8}
    assert _result_by_name(got, "body_points") == {a["name"]: 30, b["name"]: 22}
    _standings_checked(desk, server, client, ev["id"], differential=True)
    page.close()


# --------------------------------------------------------------------------- a score from a player's page
def test_a_game_score_is_reported_from_a_players_page_and_the_slips_page(server: str, browser: Any) -> None:
    """A table ranked by the game's own score: each player types both scores (no place), one on
    their page and one on the slip's; their agreeing claims confirm it, placed and scored by them."""
    client = api(server)
    ev = _event(
        client,
        None,
        "generic",
        ["Ann", "Bob"],
        scoring={"scheme": "game_score"},
        stages=[{"format": "swiss", "rounds": 1}],
    )
    (m,) = _matches(client, ev["id"])
    seats = _by_seat(m)
    scores = {seats[0]["name"]: "27", seats[1]["name"]: "31.5"}
    for k, s in enumerate(seats):
        if k:  # the slip's page, signed in by the player's token
            me = browser.new_context(**PHONE, locale="en-US").new_page()
            me.goto(f"{server}/e/{ev['id']}/m/{m['id']}#token={ev['tokens'][s['name']]}")
            me.wait_for_selector("#me h2")
        else:
            me = _phone(browser, server, ev, s["name"])
        card = me.locator(f"#m-{m['id']}")
        card.locator("summary", has_text="Report with scores").click()
        for t in seats:
            card.get_by_label(f"{t['name']}: Score", exact=True).fill(scores[t["name"]])
        card.get_by_role("button", name="Report this result").click()
        _said(me, "Your report was sent.")
        me.context.close()
    got = client.get(f"/v1/matches/{m['id']}").json()
    assert got["status"] == "confirmed", got
    assert _result_by_name(got, "score") == {n: float(v) for n, v in scores.items()}
    assert _result_by_name(got, "place") == {seats[0]["name"]: 2, seats[1]["name"]: 1}
    rows = client.get(f"/v1/events/{ev['id']}/standings").json()["rows"]
    assert [(r["name"], r["points"]) for r in rows] == [(seats[1]["name"], 31.5), (seats[0]["name"], 27)]


# --------------------------------------------------------------------------- the words, both languages
DUEL = ["Ada", "Ben"]


def test_the_arena_and_battle_royal_verdicts_in_both_languages() -> None:
    en, ja = translator("en"), translator("ja")
    judged = titan_arena.adjudicate_match(_seed_example(["Anne", "Louis", "Hatshepsut"]), 3, "seed")
    arena = verdicts.titan_arena(judged.details, {})
    assert arena is not None and [p.name for p in arena.players] == ["Anne", "Louis", "Hatshepsut"]
    (tie,) = arena.ties
    assert arena.tie(tie, ja) == (
        "Louis が Hatshepsut より上位（ともに 9 点）：Unicorn（最後に倒れたクリーチャー）への賭けが Louis は 3 点、"
        "Hatshepsut は 0 点。"
    )
    assert arena.outcome(ja) == "Anne の勝ち：12 点（Louis は 9 点）。"
    assert arena.rules(en).startswith("Titan: The Arena, the original rules; ties broken by the WBC rule")
    earlier = titan_arena.adjudicate_match(
        {
            **_seed_example(["Anne", "Louis", "Hatshepsut"]),
            "bets": [{"player": "Louis", "creature": "Wyrm", "points": 1}],
        },
        3,
        "seed",
    )
    (tie,) = verdicts.titan_arena(earlier.details, {}).ties  # type: ignore[union-attr]
    assert (
        verdicts.titan_arena(earlier.details, {})
        .tie(tie, en)
        .endswith(  # type: ignore[union-attr]
            "Louis bet 1 on the Wyrm (death 2 of 3), Hatshepsut 0."
        )
    )

    record = battlebooks_royal.adjudicate_match(_royal(1), 4, "", first_token=1)
    royal = verdicts.battle_royal(record.details, ROYAL)
    assert royal is not None
    assert royal.outcome(ja) == "Ben の勝ち：最後まで残り、ボディポイントは 20 です。"
    assert [royal.status(p, ja) for p in royal.players] == [
        "残存",
        "ターン 3（Ben の攻撃）で脱落",
        "ターン 2（Dev の攻撃）で脱落",
        "ターン 1（Ben の攻撃）で脱落",
    ]
    together = battlebooks_royal.adjudicate_match(
        {
            "body_points": [10, 10],
            "turns": [{"attacker": 0, "target": 1, "attacker_body_points": 0, "target_body_points": 0}],
        },
        2,
        "",
    )
    assert verdicts.battle_royal(together.details, ["Ada", "Ben"]).outcome(en) == (  # type: ignore[union-attr]
        "Ada, Ben share first place: the last standing, eliminated together at turn 1."
    )
    # the preset that judges the Battle Royal's records names the registry's adjudicator
    assert battle_royal_rules.BattleRoyal.own_adjudicator in ADJUDICATORS
    # what is no verdict of theirs is shown as it is
    assert verdicts.in_words("titan-arena", {"rings": []}, {}, []) == {}
    assert verdicts.in_words("rite-of-command", {"places": [1, 2]}, {}, []) == {}


def test_the_rite_of_command_verdict_and_every_adjudicators_name_in_both_languages() -> None:
    en, ja = translator("en"), translator("ja")
    # rite-of-command.md's example: ring 1 to player 1 (5 against 3), ring 2 to player 2, ring 3
    # to nobody — a draw, the wagers go back
    example = {**RINGS, "rings": [RINGS["rings"][0], RINGS["rings"][1], []]}
    drawn = verdicts.in_words(
        "rite-of-command", rite_of_command.adjudicate_match(example, 2, "s").details, {}, DUEL
    )
    duel = drawn["duel"]
    assert duel.outcome(en) == (
        "A draw: two rings of the three win the game, and nobody took two — Ada 1, Ben 1, 1 to nobody."
    )
    assert [duel.ring(r, en) for r in duel.rings] == [
        "Ring 1 to Ada: Ada's Shield bearer (with Club) beat Ben's Mace bearer (with Divine Staff), 5 to 3.",
        "Ring 2 to Ben: Ben's Priest of Osiris met no opponent.",
        "Ring 3 to nobody: no soldier was played into it.",
    ]
    assert duel.ring(duel.rings[0], ja) == (
        "リング 1 は Ada のもの：Ada の Shield bearer（Club を持つ） が Ben の Mace bearer（Divine Staff を持つ） に勝利（5 対 3）。"
    )
    assert duel.outcome(ja) == (
        "引き分け：3 つのリングのうち 2 つを取ったプレイヤーが勝ちますが、2 つ取ったプレイヤーはいません"
        "（Ada 1、Ben 1、どちらのものでもないリング 1）。"
    )
    assert [(p.name, p.place, p.rings, p.stake, p.receives) for p in duel.players] == [
        ("Ada", 1, 1, "10", "10"),
        ("Ben", 1, 1, "10", "10"),
    ]
    assert duel.wagers(ja) == "引き分けなので、賭け金はそれぞれの持ち主に戻ります。"

    # player 2 takes two rings, and a text stake; two of a player's soldiers of one card are told apart
    twice = [{"card": "Shield bearer", "owner": 1}, {"card": "Shield bearer", "owner": 1}]
    won = rite_of_command.adjudicate_match(
        {"rings": [twice, *RINGS["rings"][1:]], "wagers": {"1": "20 linen", "2": 5}}, 2, "s"
    )
    duel = verdicts.rite_of_command(won.details, DUEL)
    assert duel is not None
    assert duel.outcome(en) == "Ben wins: two rings of the three win the game, and Ben took 2, Ada 1."
    assert duel.outcome(ja) == (
        "Ben の勝ち：3 つのリングのうち 2 つを取ったプレイヤーが勝ちます。Ben は 2 つ、Ada は 1 つ取りました。"
    )
    assert duel.ring(duel.rings[0], en) == (
        "Ring 1 to Ada: Ada's Shield bearer (soldier 1 of the ring), Ada's Shield bearer (soldier 2 of the ring) "
        "met no opponent."
    )
    assert duel.ring(duel.rings[0], ja).startswith(
        "リング 1 は Ada のもの：Ada の Shield bearer（リングの 1 番目の兵士）"
    )
    assert [(p.name, p.place, p.rings, p.stake, p.receives) for p in duel.players] == [
        ("Ben", 1, 2, "5", "20 linen + 5"),
        ("Ada", 2, 1, "20 linen", "—"),
    ]
    assert (duel.wagers(en), duel.wagers(ja)) == (
        "Ben takes both wagers.",
        "Ben が両者の賭け金を受け取ります。",
    )

    # every adjudicator of the registry said by its game's name, in both languages
    for name in ADJUDICATORS:
        assert name not in (verdicts.adjudicator_named(name, en), verdicts.adjudicator_named(name, ja))
    assert [verdicts.adjudicator_named("rite-of-command", t) for t in (en, ja)] == [
        "Rite of Command",
        "ライト・オブ・コマンド",
    ]
    assert verdicts.adjudicator_named("titan-arena", en) == "Titan: The Arena"
