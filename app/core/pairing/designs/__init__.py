"""Round robin with N seats: combinatorial designs (formats.md "Round robin, N seats";
bga-round-robin.md "Schedule"; api.md "Stateless tools", ``POST /v1/schedules/round-robin``).

A schedule is a set of tables (blocks) of ``table_size`` seats, seats numbered from 0, optionally split
into rounds (everyone at most once a round). Exact designs are built by construction where one is known
(Steiner systems: round robin for pairs, Bose/Skolem triple systems, projective and affine geometries over
GF(q), a radical difference family for S(2,4,q), the Hermitian unital for 28 players in fours, a Kirkman
resolution for 15); everything else comes from a seeded greedy covering improved by simulated annealing.
Every construction is checked by :func:`check_design` before it is returned.

Rulings where the specs are silent:

- Every table has exactly ``table_size`` seats. Identical tables are not forbidden (they are needed when
  ``table_size == players`` or games_per_player is large); the pair-meeting objective keeps them rare.
- A design with every pair exactly once "exists" in the warnings' sense when the divisibility conditions
  (k−1 | N−1, k(k−1) | N(N−1)) hold, which is sufficient for k = 3 and 4 (Kirkman; Hanani).
- ``complete`` mode puts, in order: every pair meets at least once; as few tables as possible; games per
  player within one (equal when the table count allows it); pair meetings as even as possible
  (no pair three times where twice suffices). So equal games never cost an extra table; unequal games
  carry the seed's warning instead.
- ``games`` mode: every player plays exactly ``games_per_player`` games; pair meetings are kept within
  ``floor(λ)..ceil(λ)`` where λ = gpp·(k−1)/(N−1) is the average, as far as the search gets.
- ``exact`` is true when every player has the same number of games and every pair meets the same number of
  times, at least once (a 2-design; in ``complete`` mode this is "every pair exactly once", a Steiner system).
- ``games_per_player`` is an error in ``complete`` mode and required in ``games`` mode; ``players`` is at most
  ``MAX_PLAYERS`` and the design at most ``MAX_TABLES`` tables (resource limits, 422; in ``complete`` mode
  judged by the Schönheim bound).
- Known covering numbers (the yardstick for "as few tables as possible"): C(v,3,2) is the Schönheim bound
  for every v (Fort–Hedlund; the "+1 when v ≡ 5 mod 6" exception belongs to packings, not coverings —
  e.g. C(5,3,2) = 4 = L); C(v,4,2) per Mills (see :func:`known_covering_number`). When the search
  stops above the known number, or above Schönheim where nothing is known, the report says so.
- The only "impossible" check on ``games_per_player`` is divisibility (players·gpp by table_size); large
  values are possible with repeated meetings, so no upper bound beyond ``MAX_TABLES``.
- Rounds come after the design: a design is never made worse (more tables, uneven games, more uneven
  pair meetings) to save rounds. Rounds are a colouring of the tables (tables sharing a player conflict),
  then a search with the round structure built in, at the same table count, tries to reach the lower
  bound max(games per player, ceil(tables / floor(N/k))); it is kept only if the design is no worse.
  Constructions keep their own resolution (AG(n,q) parallel classes, Kirkman 15, the circle method for
  pairs). In projective planes any two tables share a player, so they need one round per table.
- In ``games`` mode with rounds, a round-structured search runs first and is kept when its pair meetings
  are within one; otherwise the free search wins if its pair meetings are more even.
- When rounds are asked for, tables are listed round by round (round 0's tables first) and ``rounds``
  holds table indices.
- In ``games`` mode, when an exact design S(2,k,N) is known and games_per_player is a multiple of its
  (N−1)/(k−1) games, the design is repeated (every pair meets equally often, ``exact``).
- The time budget is the caller's ``should_stop`` callback (no clock reads here). Without one, the search
  runs a fixed effort and stops. When ``should_stop`` ends the search early, the best design found so far
  is returned with the warning "search stopped at its time budget; …". A design always exists: a greedy
  covering (complete) or a cyclic seat fill (games) is built before any improvement.
- The seed's warning (bga-round-robin.md, ranking by average points, tie-break A "among players who won
  every game, more games ranks higher"): whenever games per player differ, the report says that a player
  who wins all of their (fewer) games ranks below an undefeated player with more games. Two players can both
  win every game only if they never share a table (or, when they do, a third player's violation scores
  the shared table +1 for both); the warning says which case applies. When some pairs never meet and games
  are equal, two undefeated players can exist and share first place (tie-break B has no head-to-head game
  and scores both 0.5); the report says so too.
- Uneven pair meetings in ``complete`` mode (max − min ≥ 1) and a table count above the lower bound
  (known covering number, else Schönheim) are reported as warnings; in ``games`` mode a pair-meeting spread
  above one is reported.
- The histogram in ``as_dict()`` has string keys (JSON object keys), ascending, including 0 when a pair
  never meets.
- Randomness only from ``rng.stream(seed, "designs:…")``: the same inputs and seed give the same design
  (unless ``should_stop`` cuts the search at a different point).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.core import rng
from app.core.pairing.designs.anneal import Anneal, cyclic_fill, greedy_cover
from app.core.pairing.designs.budget import ProgressFn, StopFn, Stopper
from app.core.pairing.designs.checks import (
    check_design,
    check_rounds,
    complete_key,
    games_key,
    known_covering_number,
    pair_counts,
    schonheim_bound,
)
from app.core.pairing.designs.constructions import steiner_system
from app.core.pairing.designs.model import Design, DesignReport, GamesRange, PairMeetings
from app.core.pairing.designs.resolvable import improve_rounds, search_rounds
from app.core.pairing.designs.rounds import color_tables, order_by_rounds, rounds_lower_bound
from app.core.pairing.designs.validation import MAX_PLAYERS, MAX_TABLES, MODES, validate_request

__all__ = [
    "MAX_PLAYERS",
    "MAX_TABLES",
    "MODES",
    "Design",
    "DesignReport",
    "GamesRange",
    "PairMeetings",
    "ProgressFn",
    "StopFn",
    "check_design",
    "check_rounds",
    "known_covering_number",
    "rounds_lower_bound",
    "schonheim_bound",
    "search_design",
    "steiner_system",
    "validate_request",
]


# --------------------------------------------------------------------------------------------------
# The search
# --------------------------------------------------------------------------------------------------


@dataclass
class _Best:
    tables: list[list[int]]
    key: tuple[int, ...]


def _search_complete(
    n: int, k: int, seed: str, stop: Stopper, progress: ProgressFn | None
) -> list[list[int]]:
    g = rng.stream(seed, f"designs:complete:{n}:{k}:greedy")
    best = _Best(greedy_cover(n, k, g), (0,))
    best.key = complete_key(best.tables, n)
    lb = known_covering_number(n, k) or schonheim_bound(n, k)
    npairs = n * (n - 1) // 2
    first_T = len(best.tables)

    def report(frac: float) -> None:
        if progress is not None:
            progress(min(0.95, max(0.0, frac)))

    def attempt(T: int, effort: int, tag: str) -> list[list[int]] | None:
        rand = rng.stream(seed, f"designs:complete:{n}:{k}:{T}:{tag}")
        # start from the best design trimmed / padded to T tables
        blocks = [list(b) for b in best.tables]
        rand.shuffle(blocks)
        while len(blocks) > T:
            blocks.pop()
        while len(blocks) < T:
            blocks.append(sorted(rand.sample(range(n), k)))
        slots = T * k * (k - 1) // 2
        phi = 2 if slots > npairs else 1
        dlo, dhi = (T * k) // n, -(-(T * k) // n)
        sa = Anneal(n, blocks, 1, phi, dlo, dhi, 4, 1, 4, True, rand)

        ok = sa.run(effort, stop, lambda s: s.n_def == 0 and s.n_deg == 0)
        return [sorted(b) for b in sa.blocks] if ok else None

    def consider(tables: list[list[int]]) -> bool:
        key = complete_key(tables, n)
        if key < best.key:
            best.tables, best.key = tables, key
            return True
        return False

    effort = 4000 + 400 * first_T
    passes = 0
    max_passes = 3 if stop.fn is None else 10**9
    polished = 0
    while not stop() and passes < max_passes:
        passes += 1
        if best.key[1] == 0 and best.key[2] == lb and (best.key[3] == 0 or polished >= 2):
            break  # optimal size; pair meetings as even as two polishing attempts get them
        # 1) the lower bound itself
        if best.key[2] > lb or best.key[1] > 0:
            found = attempt(lb, effort, f"lb:{passes}")
            if found is not None:
                consider(found)
                report(1.0)
                continue
        # 2) one table fewer than the best, repeatedly (or balance the best first)
        while not stop():
            size = best.key[2] - 1 if best.key[1] == 0 else best.key[2]
            if size <= lb:
                break
            found = attempt(size, effort, f"down:{passes}")
            if found is None or not consider(found):
                break
            report(1.0 - (best.key[2] - lb) / max(1, first_T - lb + 1))
        # 3) polish pair meetings at the current size
        if best.key[3] > 0 and best.key[1] == 0 and not stop():
            found = attempt(best.key[2], effort, f"polish:{passes}")
            if found is None or not consider(found):
                polished += 1
        effort *= 2
    return best.tables


def _search_games(
    n: int, k: int, gpp: int, resolvable: bool, seed: str, stop: Stopper, progress: ProgressFn | None
) -> tuple[list[list[int]], list[list[int]] | None]:
    T = n * gpp // k
    total = T * k * (k - 1) // 2
    npairs = n * (n - 1) // 2
    plo, phi = total // npairs, -(-total // npairs)
    if resolvable:
        per = n // k
        R = max(gpp, -(-T // per))
        found = search_rounds(n, k, T, R, plo, phi, gpp, gpp, False, seed, stop, 20000 + 3000 * T)
        if found is not None and games_key(found[0], n, plo, phi)[0] == 0:
            return found
        # pair meetings come first: search without the round structure; rounds are split afterwards
        free, _ = _search_games(n, k, gpp, False, seed, stop, progress)
        if found is None or games_key(free, n, plo, phi) < games_key(found[0], n, plo, phi):
            return free, None
        return found
    best_tables = cyclic_fill(n, k, gpp)
    best_key = games_key(best_tables, n, plo, phi)
    effort = 5000 + 500 * T
    passes = 0
    max_passes = 3 if stop.fn is None else 10**9
    while best_key[0] > 0 and not stop() and passes < max_passes:
        passes += 1
        rand = rng.stream(seed, f"designs:games:{n}:{k}:{gpp}:{passes}")
        sa = Anneal(n, best_tables, plo, phi, gpp, gpp, 1, 1, 0, False, rand)
        sa.run(effort, stop, lambda s: True)
        cand = [sorted(b) for b in sa.blocks]
        key = games_key(cand, n, plo, phi)
        if key < best_key:
            best_tables, best_key = cand, key
        if progress is not None:
            progress(min(0.9, passes / 6))
        effort *= 2
    return best_tables, None


def _warnings(
    tables: list[list[int]], n: int, k: int, mode: str, rep: DesignReport, stopped: bool
) -> list[str]:
    out: list[str] = []
    ntab = len(tables)
    if stopped:
        out.append(f"search stopped at its time budget; this is the best design found so far ({ntab} tables)")
    games = [0] * n
    for t in tables:
        for p in t:
            games[p] += 1
    gmin, gmax = rep.games_per_player.min, rep.games_per_player.max
    cnt = pair_counts(tables, n)
    if gmin < gmax:
        fewer = [p for p in range(n) if games[p] < gmax]
        more = [p for p in range(n) if games[p] == gmax]
        counts = ", ".join(
            f"{c} games: {sum(1 for g in games if g == c)} players" for c in sorted(set(games))
        )
        unmet = sum(1 for a in fewer for b in more if cnt[a * n + b if a < b else b * n + a] == 0)
        if unmet:
            how = (
                f"{unmet} such pairs of a player with fewer games and a player with {gmax} games never meet, "
                "so both can win every game"
            )
        else:
            how = (
                "every player with fewer games meets every player with the most games, so both can score full "
                "points in every game only when a third player's violation scores a shared table +1 for both"
            )
        out.append(
            f"a player who wins every game can miss first place: games per player differ ({counts}); "
            f"ranked by average points, every undefeated player averages 1, and tie-break A (among players "
            f"who won every game, more games ranks higher) puts an undefeated player with fewer games below "
            f"one with more ({how}); players with fewer than {gmax} games: {fewer}"
        )
    elif rep.pair_meetings.min == 0 and ntab > 0:
        out.append(
            "some pairs never meet, so two players can both win every game; with equal games they tie on "
            "average and on tie-break A, tie-break B has no head-to-head game (both score 0.5), and they "
            "share first place"
        )
    hist = rep.pair_meetings.histogram
    if mode == "complete":
        if rep.pair_meetings.max > rep.pair_meetings.min:
            parts = ", ".join(f"{c} pairs meet {m}×" for m, c in sorted(hist.items()))
            if (n - 1) % (k - 1) or (n * (n - 1)) % (k * (k - 1)):
                why = f"no design with every pair exactly once exists for {n} players in tables of {k}"
            else:
                why = "no design with every pair exactly once was found"
            out.append(f"pair meetings are uneven ({parts}): {why}")
        lb = known_covering_number(n, k)
        bound = schonheim_bound(n, k)
        if lb is not None and ntab > lb:
            out.append(f"{ntab} tables; the fewest possible is {lb} (known covering number C({n},{k},2))")
        elif lb is None and ntab > bound:
            out.append(
                f"{ntab} tables; the Schönheim lower bound is {bound}, so fewer tables may be possible"
            )
    elif rep.pair_meetings.max - rep.pair_meetings.min > 1:
        parts = ", ".join(f"{c} pairs meet {m}×" for m, c in sorted(hist.items()))
        out.append(f"pair meetings differ by more than one ({parts})")
    return out


class _Monotone:
    """Passes progress on only when it grows, so the caller sees 0..1 never going back."""

    def __init__(self, fn: ProgressFn) -> None:
        self.fn = fn
        self.last = -1.0

    def __call__(self, value: float) -> None:
        value = min(1.0, max(0.0, value))
        if value > self.last:
            self.last = value
            self.fn(value)


def search_design(
    players: int,
    table_size: int,
    mode: str,
    games_per_player: int | None = None,
    rounds: bool = False,
    seed: str = "",
    should_stop: StopFn | None = None,
    progress: ProgressFn | None = None,
) -> Design:
    """A round-robin design for ``players`` seats in tables of ``table_size`` (see the module docstring)."""
    validate_request(players, table_size, mode, games_per_player)
    n, k = players, table_size
    stop = Stopper(should_stop)
    if progress is not None:
        progress = _Monotone(progress)
    tables: list[list[int]]
    rnds: list[list[int]] | None = None
    steiner = steiner_system(n, k)
    if mode == "complete":
        if steiner is not None:
            tables, rnds = steiner
        else:
            tables = _search_complete(n, k, seed, stop, progress)
    else:
        assert games_per_player is not None
        gpp = games_per_player
        r = (n - 1) // (k - 1)
        if steiner is not None and (n - 1) % (k - 1) == 0 and gpp % r == 0:
            base, base_rounds = steiner
            reps = gpp // r
            tables = [list(t) for _ in range(reps) for t in base]
            if base_rounds is not None:
                rnds = [[ti + i * len(base) for ti in rr] for i in range(reps) for rr in base_rounds]
        else:
            resolvable = rounds
            tables, rnds = _search_games(n, k, gpp, resolvable, seed, stop, progress)
    tables = [sorted(t) for t in tables]
    out_rounds: list[list[int]] | None = None
    if rounds:
        if rnds is None or not check_rounds(tables, rnds):
            rand = rng.stream(seed, f"designs:rounds:{n}:{k}:{mode}:{games_per_player}")
            rnds = color_tables(tables, n, rand, stop, 2000 + 50 * len(tables))
            tables, rnds = improve_rounds(tables, rnds, n, k, mode, seed, stop)
        tables, out_rounds = order_by_rounds(tables, rnds)
    rep = check_design(tables, n)
    rep.warnings = _warnings(tables, n, k, mode, rep, stop.stopped)
    if progress is not None:
        progress(1.0)
    return Design(tables=tables, rounds=out_rounds, report=rep)
