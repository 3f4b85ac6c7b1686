"""What a schedule request may ask for (formats.md "Round robin, N seats"; api.md "Stateless tools",
``POST /v1/schedules/round-robin``): a request outside the limits is refused with InvalidInput (422),
each problem naming its field.

``games_per_player`` is an error in ``complete`` mode and required in ``games`` mode; ``players`` is at most
``MAX_PLAYERS`` and the design at most ``MAX_TABLES`` tables (in ``complete`` mode judged by the Schönheim
bound). The only "impossible" check on ``games_per_player`` is divisibility (players·gpp by table_size).
"""

from __future__ import annotations

import math
from typing import Any

from app.core.errors import InvalidInput, Problem
from app.core.pairing.designs.checks import schonheim_bound

MODES = ("complete", "games")
MAX_PLAYERS = 256
MAX_TABLES = 5000


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def validate_request(players: Any, table_size: Any, mode: Any, games_per_player: Any = None) -> None:
    """Raise InvalidInput for a request :func:`search_design` would refuse (checks only, no search)."""
    problems: list[Problem] = []
    if not _is_int(players) or players < 2:
        problems.append(Problem(("players",), "players must be a whole number of at least 2"))
    elif players > MAX_PLAYERS:
        problems.append(Problem(("players",), f"at most {MAX_PLAYERS} players per design"))
    if not _is_int(table_size) or table_size < 2:
        problems.append(Problem(("table_size",), "table_size must be a whole number of at least 2"))
    elif _is_int(players) and players >= 2 and table_size > players:
        problems.append(
            Problem(("table_size",), f"table_size {table_size} is larger than the {players} players")
        )
    if mode not in MODES:
        problems.append(Problem(("mode",), f"mode must be 'complete' or 'games', not {mode!r}"))
    elif mode == "complete" and games_per_player is not None:
        problems.append(Problem(("games_per_player",), "games_per_player is only used with mode 'games'"))
    elif mode == "games":
        if games_per_player is None:
            problems.append(Problem(("games_per_player",), "mode 'games' needs games_per_player"))
        elif not _is_int(games_per_player) or games_per_player < 1:
            problems.append(
                Problem(("games_per_player",), "games_per_player must be a whole number of at least 1")
            )
    if problems:
        raise InvalidInput(problems[0].msg if len(problems) == 1 else "invalid schedule request", problems)
    if mode == "complete" and schonheim_bound(players, table_size) > MAX_TABLES:
        msg = (
            f"{players} players in tables of {table_size} need at least {schonheim_bound(players, table_size)} "
            f"tables, more than the limit of {MAX_TABLES}"
        )
        raise InvalidInput(msg, [Problem(("players",), msg)])
    if mode == "games":
        n, k, g = players, table_size, games_per_player
        if (n * g) % k:
            step = k // math.gcd(n, k)
            lower = (g // step) * step
            upper = lower + step
            gs = [str(x) for x in (lower, upper) if x >= 1]
            ns = [m for m in range(max(2, n - k), n + k + 1) if m >= k and (m * g) % k == 0]
            near_n = sorted(ns, key=lambda m: (abs(m - n), m))[:2]
            msg = (
                f"{n} players × {g} games = {n * g} seats, which cannot be split into tables of {k}; "
                f"games_per_player must be a multiple of {step} with {n} players "
                f"(nearest: {' or '.join(gs)})"
            )
            if near_n:
                msg += f", or with {g} games use {' or '.join(map(str, sorted(near_n)))} players"
            raise InvalidInput(msg, [Problem(("games_per_player",), msg)])
        if n * g // k > MAX_TABLES:
            msg = f"{n * g // k} tables is more than the limit of {MAX_TABLES}"
            raise InvalidInput(msg, [Problem(("games_per_player",), msg)])
