"""The report's warnings (formats.md "Round robin, N seats"; bga-round-robin.md "Schedule": ranking by
average points, tie-break A "among players who won every game, more games ranks higher").

The seed's warning whenever games per player differ (and whether two undefeated players can exist); shared
first place when some pairs never meet; uneven pair meetings; a table count above the known covering number,
else above the Schönheim bound; and a search stopped at its time budget.
"""

from __future__ import annotations

from app.core.pairing.designs.checks import known_covering_number, pair_counts, schonheim_bound
from app.core.pairing.designs.model import DesignReport


def warnings(
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
