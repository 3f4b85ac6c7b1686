"""Standings benchmark (not a test): ``python -m bench.standings_bench [--quick] [--parts
engine,change,served] [--only sqlite|postgres]``.

* 10,000 entries after 15 Swiss-like rounds of seeded random 2-seat results (wdl 3/1/0 with
  differential), the full chain with ``head_to_head`` first, computed in memory by
  ``compute_standings`` (best of 3).
* Against a naive implementation in this file: a ``functools.cmp_to_key`` comparator that recomputes
  every value from the raw games at each comparison (points by re-scoring each game, opponents'
  points likewise, and the tied group for ``head_to_head``/``dice`` by scanning every entry). It is
  O(n² log n), so both run on a smaller field (``--naive-size``, default 200) for the ratio, and the
  two orders are checked to agree.
* ``change``: the standings after one result at 2,048 entries (a Swiss of 7 rounds played, in
  memory): the kept ledger brought up to date (``StandingsLedger.update`` then ``standings``)
  against the clean recompute (``compute_standings``) of the same games, alternated, best of 7,
  for the Swiss default chain and the full chain above; both answers checked equal.
* ``served``: the same through HTTP, on a uvicorn process as deployed (``bench/http.py``), on
  SQLite and Postgres: a Swiss of 2,048 entries with 5 rounds played and round 6 half reported;
  then, alternated, ``GET …/standings`` right after one more result (folded into the kept
  ledger) and right after a drop (an entry changed: computed afresh, as every read after a change
  was before the ledger), each read's wall time and the server's CPU; medians and the ratio.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.core import rng
from app.core.scoring import GameResult, ScoredSeat, SeatResult, score_game
from app.core.standings import (
    EntryInfo,
    StandingsConfig,
    StandingsLedger,
    compute_standings,
    standings_config,
)

CHAIN = [
    "head_to_head",
    "wins",
    "buchholz",
    "median_buchholz",
    "sonneborn_berger",
    "opponent_win_pct",
    "differential",
    "dice",
]
SETTINGS = {"scoring": {"scheme": "wdl", "win": 3, "draw": 1, "loss": 0}, "tiebreaks": CHAIN}


def field(n: int, rounds: int = 15, seed: str = "bench") -> tuple[list[EntryInfo], list[GameResult]]:
    """``n`` entries and ``rounds`` rounds: pair adjacent by current points, random results."""
    draw = rng.stream(seed, "bench:standings:results")
    ids = [f"e{i:05d}" for i in range(n)]
    entries = [EntryInfo(e, f"Player {e}", draw.random()) for e in ids]
    points = dict.fromkeys(ids, 0.0)
    games: list[GameResult] = []
    for rnd in range(1, rounds + 1):
        order = sorted(ids, key=lambda e: (-points[e], draw.random()))
        if len(order) % 2:
            bye = order.pop()
            games.append(GameResult(f"r{rnd}-bye", rnd, "bye", (SeatResult(bye, None, None),)))
            points[bye] += 3
        for t in range(0, len(order), 2):
            a, b = order[t], order[t + 1]
            roll = draw.random()
            mid = f"r{rnd}-t{t // 2}"
            if roll < 0.1:
                games.append(GameResult(mid, rnd, "draw", (SeatResult(a, 1, None), SeatResult(b, 1, None))))
                points[a] += 1
                points[b] += 1
            else:
                w, l = (a, b) if roll < 0.55 else (b, a)
                diff = float(draw.randint(1, 20))
                games.append(
                    GameResult(mid, rnd, "played", (SeatResult(w, 1, None, diff), SeatResult(l, 2, None)))
                )
                points[w] += 3
    return entries, games


# --------------------------------------------------------------------------- naive baseline


def naive_standings(
    entries: list[EntryInfo], games: list[GameResult], config: StandingsConfig, seed: str
) -> list[str]:
    """Entry ids in ranking order, every value recomputed from raw games at every comparison."""
    by_entry: dict[str, list[GameResult]] = {e.entry_id: [] for e in entries}
    for g in games:
        for s in g.seats:
            by_entry[s.entry_id].append(g)
    info = {e.entry_id: e for e in entries}
    ids = sorted(info)
    cfg = config.scoring

    def seats_of(e: str) -> list[tuple[ScoredSeat, tuple[ScoredSeat, ...], str]]:
        out = []
        for g in by_entry[e]:
            sg = score_game(g, cfg)
            if sg is None:
                continue
            for s in sg.seats:
                if s.entry_id == e:
                    out.append((s, sg.seats, sg.outcome))
        return out

    def points(e: str) -> float:
        return sum(s.points for s, _, _ in seats_of(e))

    def played(e: str) -> list[tuple[ScoredSeat, tuple[ScoredSeat, ...]]]:
        return [(s, seats) for s, seats, outcome in seats_of(e) if outcome != "bye"]

    def wins(e: str) -> float:
        return sum(1 for s, _ in played(e) if s.result == "win")

    def opp_points(e: str) -> list[float]:
        return [sum(points(o.entry_id) for o in seats if o.entry_id != e) for _, seats in played(e)]

    def buchholz(e: str) -> float:
        return sum(opp_points(e))

    def median_buchholz(e: str) -> float:
        v = opp_points(e)
        return sum(v) - max(v) - min(v) if len(v) >= 3 else sum(v)

    def sonneborn_berger(e: str) -> float:
        total = 0.0
        for s, seats in played(e):
            for o in seats:
                if o.entry_id != e:
                    if s.order < o.order:
                        total += points(o.entry_id)
                    elif s.order == o.order:
                        total += 0.5 * points(o.entry_id)
        return total

    def opponent_win_pct(e: str) -> float | None:
        v = [
            wins(o.entry_id) / len(played(o.entry_id))
            for _, seats in played(e)
            for o in seats
            if o.entry_id != e
        ]
        return sum(v) / len(v) if v else None

    def differential(e: str) -> float:
        return sum(s.differential for s, _ in played(e))

    def head_to_head(e: str, group: set[str]) -> float:
        total, count = 0.0, 0
        for s, seats in played(e):
            c = sum(1 for o in seats if o.entry_id in group and o.entry_id != e)
            total += c * s.points
            count += c
        return total / count if count else config.h2h_default

    def dice(e: str, group: set[str]) -> float:
        order = sorted(group)
        stream = rng.stream(seed, "standings:dice:" + "|".join(order))
        rolls = list(range(1, len(order) + 1))
        stream.shuffle(rolls)
        return float(dict(zip(order, rolls, strict=True))[e])

    plain: dict[str, Callable[[str], float | None]] = {
        "wins": wins,
        "buchholz": buchholz,
        "median_buchholz": median_buchholz,
        "sonneborn_berger": sonneborn_berger,
        "opponent_win_pct": opponent_win_pct,
        "differential": differential,
        "tiebreak_value": lambda e: info[e].tiebreak_value,
    }
    grouped: dict[str, Callable[[str, set[str]], float]] = {"head_to_head": head_to_head, "dice": dice}
    levels = ["points", *config.tiebreaks]

    def value(level: int, e: str, group: set[str] | None) -> float | None:
        name = levels[level]
        if name == "points":
            return points(e)
        if name in grouped:
            assert group is not None
            return grouped[name](e, group)
        return plain[name](e)

    def key(v: float | None) -> tuple[int, float]:
        return (1, 0.0) if v is None else (0, -round(v, 9))

    def tied_group(a: str, level: int) -> set[str]:
        """Entries tied with ``a`` on every level before ``level``, found by scanning everybody."""
        members = set(ids)
        for k in range(level):
            group = members if levels[k] in grouped else None
            target = key(value(k, a, group))
            members = {e for e in members if key(value(k, e, group)) == target}
        return members

    def cmp(a: str, b: str) -> int:
        for level, name in enumerate(levels):
            group = tied_group(a, level) if name in grouped else None
            ka, kb = key(value(level, a, group)), key(value(level, b, group))
            if ka != kb:
                return -1 if ka < kb else 1
        return 0

    def cmp_display(a: str, b: str) -> int:
        return cmp(a, b) or ((info[a].name, a) > (info[b].name, b)) - ((info[a].name, a) < (info[b].name, b))

    return sorted(ids, key=functools.cmp_to_key(cmp_display))


# --------------------------------------------------------------------------- runner


def best_of(k: int, fn: Callable[[], object]) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(k):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def engine(args: argparse.Namespace) -> None:
    size, naive_size = (500, 40) if args.quick else (args.size, args.naive_size)
    config = standings_config(SETTINGS)
    seed = "bench-seed"
    print(f"chain: {' > '.join(['points', *CHAIN])}")

    entries, games = field(size)
    t, rows = best_of(3, lambda: compute_standings(entries, games, config, seed))
    assert isinstance(rows, list)
    shared = len(rows) - len({r.rank for r in rows})
    reasons: dict[str | None, int] = {}
    for r in rows:
        reasons[r.decided_by] = reasons.get(r.decided_by, 0) + 1
    print(f"fast:  {size:>6} entries, {len(games)} games, 15 rounds: {t * 1000:8.1f} ms  (best of 3)")
    print(
        f"       decided_by: {dict(sorted(reasons.items(), key=lambda kv: -kv[1]))}; rows sharing a rank: {shared}"
    )

    small_entries, small_games = field(naive_size)
    t_fast, small_rows = best_of(5, lambda: compute_standings(small_entries, small_games, config, seed))
    t0 = time.perf_counter()
    naive_order = naive_standings(small_entries, small_games, config, seed)
    t_naive = time.perf_counter() - t0
    assert isinstance(small_rows, list)
    fast_order = [r.entry_id for r in small_rows]
    agree = "orders agree" if fast_order == naive_order else "ORDERS DIFFER"
    print(f"fast:  {naive_size:>6} entries: {t_fast * 1000:10.2f} ms  (best of 5)")
    print(
        f"naive: {naive_size:>6} entries: {t_naive * 1000:10.2f} ms  (cmp_to_key, recomputed per comparison)"
    )
    print(f"ratio naive/fast at {naive_size} entries: {t_naive / t_fast:,.0f}x  ({agree})")


# --------------------------------------------------------------------------- after one change

SWISS_CHAIN = ["buchholz", "sonneborn_berger", "wins"]  # the Swiss format's default


def _flipped(game: GameResult) -> GameResult:
    """The game with its result turned around (a correction): the other seat wins by 3."""
    a, b = game.seats
    if a.place == 1 and b.place == 2:
        return GameResult(
            game.match_id,
            game.round,
            "played",
            (SeatResult(a.entry_id, 2, None), SeatResult(b.entry_id, 1, None, 3.0)),
        )
    return GameResult(
        game.match_id,
        game.round,
        "played",
        (SeatResult(a.entry_id, 1, None, 3.0), SeatResult(b.entry_id, 2, None)),
    )


def _as_read(games: list[GameResult]) -> list[GameResult]:
    """The same games as new objects, as every read from the database makes them."""
    return [
        GameResult(
            g.match_id,
            g.round,
            g.outcome,
            tuple(SeatResult(s.entry_id, s.place, s.score, s.differential, s.violation) for s in g.seats),
        )
        for g in games
    ]


def change(args: argparse.Namespace) -> None:
    size, rounds, tries = (256, 4, 3) if args.quick else (2048, 7, 7)
    entries, played = field(size, rounds)
    # the last round: every game but the last 8 reported; each try reports one more
    last = [g for g in played if g.round == rounds and g.outcome != "bye"]
    pending = {g.match_id for g in last[-tries - 1 :]}
    print(
        f"one result at {size} entries, {len(played) - len(pending)} games played ({rounds} rounds), in memory:"
    )
    for chain in (SWISS_CHAIN, CHAIN):
        config = standings_config({**SETTINGS, "tiebreaks": chain})
        seed = "bench-seed"
        games = [g for g in played if g.match_id not in pending]
        ledger = StandingsLedger(entries, games, config, seed)
        kept, clean = float("inf"), float("inf")
        waiting = [g for g in played if g.match_id in pending]
        for k in range(tries):
            games = (
                [*games, waiting[k]]
                if k % 2 == 0
                else [_flipped(g) if g.match_id == waiting[k - 1].match_id else g for g in games]
            )
            read = _as_read(games)  # as a read from the database gives them: new objects
            t0 = time.perf_counter()
            assert ledger.update(entries, read, config, seed)
            rows = ledger.standings()
            t1 = time.perf_counter()
            again = compute_standings(entries, read, config, seed)
            t2 = time.perf_counter()
            assert rows == again, "the ledger's standings differ from the clean recompute"
            kept, clean = min(kept, t1 - t0), min(clean, t2 - t1)
        print(
            f"  {' > '.join(chain):<44} kept ledger {kept * 1e3:7.1f} ms   clean recompute {clean * 1e3:7.1f} ms"
            f"   ratio clean/kept {clean / kept:5.1f}x  (best of {tries}, a result or a correction each, answers equal)"
        )


def served(args: argparse.Namespace) -> None:
    from bench.http import CONCURRENCY, Api, _env, database, load, postgres_reachable, result_requests, serve

    size, rounds, tries = (48, 2, 3) if args.quick else (2048, 5, 7)
    kinds = [args.only] if args.only else ["sqlite", "postgres"]
    with tempfile.TemporaryDirectory() as tmp:
        for kind in kinds:
            if kind == "postgres" and not postgres_reachable():
                print("postgres: not reachable (BENCH_POSTGRES_URL): skipped")
                continue
            with (
                database(kind, Path(tmp)) as url,
                serve(["-m", "app.cli", "serve"], _env(url), Path(tmp) / f"standings-{kind}.log") as server,
            ):
                api = Api(server.port)
                t0 = time.perf_counter()
                eid, org, matches = api.event(size, rounds + 1)
                for number in range(1, rounds + 1):
                    load(server, result_requests(matches, org, number))
                    _, matches = api.pair(eid, org)
                open_ = [m for m in matches if m["status"] == "pending"]
                load(server, result_requests(open_[: len(open_) // 2], org, rounds + 1))
                rest = open_[len(open_) // 2 :]
                print(
                    f"{kind}: GET standings at {size} entries, {rounds} rounds played and round {rounds + 1} "
                    f"half reported (built in {time.perf_counter() - t0:.0f} s, {CONCURRENCY} results in flight):"
                )
                done = [m for m in open_[: len(open_) // 2]]
                api.http.get(f"/v1/events/{eid}/standings")  # the kept ledger built
                kept: list[tuple[float, float]] = []
                clean: list[tuple[float, float]] = []
                for k in range(tries):
                    body = json.loads(result_requests([rest[k]], org, k)[0][2])
                    api.call("POST", f"/v1/matches/{rest[k]['id']}/result", org, body)
                    kept.append(_read(api, server, eid))
                    dropped = done[k]["seats"][0]["entry_id"]  # its game of this round is reported
                    api.call("DELETE", f"/v1/events/{eid}/entries/{dropped}", org)
                    clean.append(_read(api, server, eid))
                wall_k, cpu_k = (statistics.median(x) for x in zip(*kept, strict=True))
                wall_c, cpu_c = (statistics.median(x) for x in zip(*clean, strict=True))
                print(
                    f"  after a result (the kept ledger):   {wall_k * 1e3:7.1f} ms, server CPU {cpu_k * 1e3:6.0f} ms"
                    f"   (median of {tries})"
                )
                print(
                    f"  after a drop (computed afresh):     {wall_c * 1e3:7.1f} ms, server CPU {cpu_c * 1e3:6.0f} ms"
                    f"   (median of {tries})"
                )
                print(
                    f"  ratio afresh/kept: {wall_c / wall_k:.1f}x wall, {cpu_c / cpu_k:.1f}x CPU; target 100 ms: {'met' if wall_k <= 0.100 else 'not met'}"
                )


def _read(api: Any, server: Any, eid: str) -> tuple[float, float]:
    """One GET of the standings: its wall time and the server's CPU for it."""
    cpu0 = server.cpu()
    t0 = time.perf_counter()
    r = api.http.get(f"/v1/events/{eid}/standings")
    wall = time.perf_counter() - t0
    if r.status_code != 200:
        raise RuntimeError(f"GET standings: {r.status_code} {r.text[:300]}")
    return wall, server.cpu() - cpu0


PARTS = {"engine": engine, "change": change, "served": served}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--naive-size", type=int, default=200)
    parser.add_argument(
        "--parts", type=lambda v: v.split(","), default=list(PARTS), help="which of engine, change, served"
    )
    parser.add_argument("--only", choices=("sqlite", "postgres"), help="served: one database")
    args = parser.parse_args()
    for part in args.parts:
        PARTS[part](args)


if __name__ == "__main__":
    main()
