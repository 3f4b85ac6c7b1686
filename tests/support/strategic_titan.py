"""Strategic Titan records built event by event, and one whole four-player game (kept records the
core replays and matches are reported from)."""

from __future__ import annotations

from typing import Any

P4 = ["Ann", "Bob", "Cy", "Dee"]


def start(n: int = 2, **kw: Any) -> dict[str, Any]:
    return {"type": "start", "towers": [100, 200, 300, 400, 500, 600][:n], **kw}


def mv(player: str | int, number: int | str, **kw: Any) -> dict[str, Any]:
    return {"type": "movement", "player": player, "number": number, **kw}


def split(player: str, times: int = 1) -> list[dict[str, Any]]:
    return [{"type": "split", "player": player}] * times


def enc(attacker: str, defender: str, outcome: str, **kw: Any) -> dict[str, Any]:
    return {"type": "encounter", "attacker": attacker, "defender": defender, "outcome": outcome, **kw}


def four_player_game() -> list[dict[str, Any]]:
    e: list[dict[str, Any]] = [start(4, options={"start": "warlock"})]
    # round 1: everyone splits twice (three starting splits with a Warlock, 9.1)
    for p, n in zip(P4, (3, 4, 5, 6), strict=True):
        e += [*split(p, 2), mv(p, n)]
    e += [
        {"type": "teleport", "player": "Dee", "to": 200},
        {"type": "recruit", "player": "Dee", "creature": "Gorgon"},
    ]
    # round 2
    e += [
        mv("Ann", 4),
        {"type": "stop", "player": "Ann", "tower": 300},
        {"type": "recruit", "player": "Ann", "creature": "Troll", "mulligans": True},
    ]
    e += [mv("Bob", 2), enc("Bob", "Cy", "destroyed", points={"Bob": 40})]
    e += [mv("Cy", 2, centre=1), mv("Dee", 2)]
    # round 3: combat with the Titan
    e += [mv("Ann", 5), {"type": "attack", "attacker": "Ann", "defender": "Cy", "titan": True}]
    e += [{"type": "reroll", "player": "Cy", "titan": True}, {"type": "reroll", "player": "Ann"}]
    e += [
        enc("Ann", "Cy", "destroyed", legions={"Cy": 0}, points={"Ann": 110}),
        {"type": "titan_killed", "player": "Cy"},
    ]
    e += [mv("Bob", 3), enc("Bob", "Dee", "surrendered", points={"Bob": 20})]
    e += [mv("Dee", 3), enc("Dee", "Bob", "time-out")]
    # round 4: Dee's Titan falls to Ann, then Ann's to Bob
    e += [
        mv("Ann", 3),
        enc("Ann", "Dee", "destroyed", titan=True, legions={"Dee": 0}),
        {"type": "titan_killed", "player": "Dee"},
    ]
    e += [mv("Bob", 1), enc("Bob", "Ann", "destroyed", titan=True, points={"Bob": 100})]
    e += [{"type": "titan_killed", "player": "Ann"}]
    return e
