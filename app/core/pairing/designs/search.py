"""The search and its public entry point, :func:`search_design` (formats.md "Round robin, N seats";
bga-round-robin.md "Schedule"; api.md "Stateless tools", ``POST /v1/schedules/round-robin``).

An exact construction where one is known (in ``games`` mode repeated when games_per_player is a multiple
of its games); else a seeded covering search (``complete``) or a search for even pair meetings at fixed
games (``games``), within the caller's time budget; then rounds when asked for; then the report.
Randomness only from ``rng.stream(seed, "designs:…")``: the same inputs and seed give the same design.
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
    schonheim_bound,
)
from app.core.pairing.designs.constructions import steiner_system
from app.core.pairing.designs.cyclic import stored_cover
from app.core.pairing.designs.model import Design
from app.core.pairing.designs.report import warnings
from app.core.pairing.designs.resolvable import fewest_resolvable_rounds, improve_rounds, search_rounds
from app.core.pairing.designs.rounds import color_tables, order_by_rounds
from app.core.pairing.designs.validation import validate_request
from app.core.pairing.round_robin import berger_rounds


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
        sa = Anneal(
            n=n,
            blocks=blocks,
            plo=1,
            phi=phi,
            dlo=dlo,
            dhi=dhi,
            w_def=4,
            w_sur=1,
            w_deg=4,
            replace=True,
            rand=rand,
        )

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
        if found is not None and (n % k == 0 or games_key(found[0], n, plo, phi)[0] == 0):
            return found  # every round seats everyone (k divides n): the fewest rounds come first
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
        sa = Anneal(
            n=n,
            blocks=best_tables,
            plo=plo,
            phi=phi,
            dlo=gpp,
            dhi=gpp,
            w_def=1,
            w_sur=1,
            w_deg=0,
            replace=False,
            rand=rand,
        )
        sa.run(effort, stop, lambda s: True)
        cand = [sorted(b) for b in sa.blocks]
        key = games_key(cand, n, plo, phi)
        if key < best_key:
            best_tables, best_key = cand, key
        if progress is not None:
            progress(min(0.9, passes / 6))
        effort *= 2
    return best_tables, None


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


def _berger_design(n: int, mode: str, cycles: int, rounds: bool) -> Design:
    """A 2-seat round robin by Berger tables (formats.md, the ruling "2-seat round-robin
    schedules"): seats in table order, first seat first; each further cycle swaps the seats."""
    tables: list[list[int]] = []
    rnds: list[list[int]] = []
    for c in range(cycles):
        for boards in berger_rounds(n):
            played = [[a, b] if c % 2 == 0 else [b, a] for a, b in boards if a < n and b < n]
            rnds.append(list(range(len(tables), len(tables) + len(played))))
            tables += played
    rep = check_design(tables, n)
    rep.warnings = warnings(tables, n, 2, mode, rep, False)
    return Design(tables=tables, rounds=rnds if rounds else None, report=rep)


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
    """A round-robin design for ``players`` seats in tables of ``table_size`` (see the package doc)."""
    validate_request(players, table_size, mode, games_per_player)
    n, k = players, table_size
    stop = Stopper(should_stop)
    if progress is not None:
        progress = _Monotone(progress)
    if k == 2 and (mode == "complete" or (games_per_player or 0) % (n - 1) == 0):
        design = _berger_design(
            n, mode, 1 if mode == "complete" else (games_per_player or 0) // (n - 1), rounds
        )
        if progress is not None:
            progress(1.0)
        return design
    tables: list[list[int]]
    rnds: list[list[int]] | None = None
    steiner = steiner_system(n, k)
    stored = None
    if mode == "complete" and rounds and (steiner is None or steiner[1] is None):
        stored = stored_cover(n, k)  # also the resolution of an exact design built without one
    if mode == "complete":
        if stored is not None:
            tables, rnds = stored
        elif steiner is not None:
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
        if mode == "complete" and n % k == 0 and stored is None:
            fewer = fewest_resolvable_rounds(n, k, len(rnds), seed, stop)
            if fewer is not None:
                tables, rnds = [sorted(t) for t in fewer[0]], fewer[1]
        tables, out_rounds = order_by_rounds(tables, rnds)
    rep = check_design(tables, n)
    rep.warnings = warnings(tables, n, k, mode, rep, stop.stopped)
    if progress is not None:
        progress(1.0)
    return Design(tables=tables, rounds=out_rounds, report=rep)
