"""Swiss pairing quality and speed beside bbpPairings (not a test): ``python -m bench.swiss_quality_bench``.

Three engines each pair their own 8-round tournament of the same players under the same seeded
results: **Arbiter** (``pair_swiss`` with seat balance, seats by ``seats.allocate``), and bbpPairings
v6's **Dutch** and **Burstein** (FIDE), the binary named by ``ARBITER_BBPPAIRINGS`` (default
``/work/tools/bbpPairings/bbpPairings.exe``), fed a TRF (``app/core/trf.py``) of its own tournament
before every round. Without the binary the Dutch and Burstein columns are skipped with a message.

Why each engine plays its own tournament rather than pairing one shared history: seat balance and
three-in-a-row are properties of a whole sequence of pairings, so they can only be compared between
tournaments each engine paired from the start. The results are not drawn in play order but from
the pair itself: the game of players a and b in round r has one seeded outcome (the stronger
player wins more often; one game in ten is drawn), whoever pairs it, so the tournaments differ only
where the pairings do. Against the floor: each round's floats are compared with the exact minimum
for that engine's own history (no rematch, the same bye) — a max-weight matching over every
rematch-free pair — where the field is small enough to build that complete graph.

Floats are counted as FIDE counts floaters, once per score group a pair crosses (a pair of 2.5
and 1.0 across the groups 2.0 and 1.5 is three floats: the downfloater is one in each bracket it
passes); the floated pairs (scores differ) are printed beside them.

Printed per size (100, 1,000, 4,000; ``--quick``: 100 and 1,000): round 8's floats and the exact
minimum (up to ``EXACT_UP_TO`` entries), its floated pairs, the total of its score gaps and the
largest, players with |first − second| > 1 and with three equal seats in a row after 8 rounds,
round 8's CPU seconds and the whole tournament's (with ``--seeds N``, also each engine's mean
|first − second| > 1 over N seeds, ``quality:<n>`` and ``quality:<n>:1`` …, since one tournament's
figure is mostly the luck of its results; an engine whose round took over ``REPEAT_CPU`` seconds,
the Dutch one at 1,000, is not repeated); then Burstein's CPU over Arbiter's at 1,000 and
Arbiter's round 8 at 10,000 entries. bbpPairings pairs fields up to ``--bbp-max`` (1,000 by
default: its Dutch takes minutes of CPU a round at 1,000 entries, hours at 4,000). Arbiter's CPU is
the core's, from the ``SwissEntry`` list to the seated tables; bbpPairings' is the child process's,
reading its TRF included.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import rustworkx as rx

from app.core.pairing.seats import allocate
from app.core.pairing.swiss import SwissEntry, pair_swiss
from app.core.pairing.swiss_cost import score_groups
from app.core.trf import TrfGame, TrfPlayer, trf_document

ROUNDS = 8
DEFAULT_BBP = "/work/tools/bbpPairings/bbpPairings.exe"
EXACT_UP_TO = 1000  # the exact minimum's complete graph is built up to this many entries
REPEAT_CPU = 5.0  # ``--seeds`` does not repeat an engine whose round took more CPU-s than this


@dataclass
class Player:
    start: int  # starting rank, 1 = strongest
    strength: float
    score: float = 0.0
    opponents: set[int] = field(default_factory=set)
    byes: int = 0
    seats: list[int] = field(default_factory=list)  # 0 first, 1 second, played games only
    games: list[TrfGame] = field(default_factory=list)


@dataclass
class RoundFigures:
    floats: int  # score groups crossed, summed over the pairs (``crossings``)
    floated_pairs: int  # pairs whose two scores differ
    minimum: int | None
    gap_total: float
    gap_max: float
    cpu: float


def players(n: int, seed: str) -> list[Player]:
    strengths = sorted((random.Random(f"{seed}:{i}").gauss(0, 1) for i in range(n)), reverse=True)
    return [Player(start=i + 1, strength=s) for i, s in enumerate(strengths)]


def outcome(seed: str, rnd: int, white: Player, black: Player) -> float:
    """White's points in the game of these two in round ``rnd``: one seeded draw per pair and round."""
    lo, hi = sorted((white.start, black.start))
    roll = random.Random(f"{seed}:{rnd}:{lo}:{hi}")
    if roll.random() < 0.1:
        return 0.5
    edge = 1 / (1 + 10 ** ((black.strength - white.strength) / 2))
    return 1.0 if roll.random() < edge else 0.0


def ranking(field_: list[Player]) -> list[Player]:
    return sorted(field_, key=lambda p: (-p.score, p.start))


def arbiter_round(field_: list[Player]) -> tuple[list[tuple[int, int]], int | None, float]:
    """Arbiter's round: the pairs (first seat first), the bye, and the core's CPU seconds (from the
    ``SwissEntry`` list to the seated tables: ``pair_swiss`` and ``seats.allocate``)."""
    order = ranking(field_)
    entries = [
        SwissEntry(
            id=str(p.start),
            score=p.score,
            opponents=frozenset(str(o) for o in p.opponents),
            byes=p.byes,
            seats=tuple(p.seats),
        )
        for p in order
    ]
    t = time.process_time()
    pairing = pair_swiss(entries)
    pairs = []
    for table, pr in enumerate(pairing.pairs, start=1):
        a, b = int(pr.first), int(pr.second)
        seated = allocate(pr.first, pr.second, field_[a - 1].seats, field_[b - 1].seats, table)
        pairs.append((int(seated.first), int(seated.second)))
    cpu = time.process_time() - t
    return pairs, None if pairing.bye is None else int(pairing.bye.entry), cpu


def trf_of(field_: list[Player], played: int) -> str:
    body = trf_document(
        "bench",
        "2026/01/01",
        "2026/01/08",
        "Swiss",
        ROUNDS,
        (1.0, 0.5, 0.0, 1.0),
        [
            TrfPlayer(
                start=p.start,
                name=f"P{p.start}",
                rating=round(2000 + 200 * p.strength),
                fide_id=None,
                points=p.score,
                rank=p.start,
                games=p.games[:played],
            )
            for p in field_
        ],
    )
    return body + "XXC white1\nXXA    1  0.0\n"  # no acceleration (Burstein would default to one)


def bbp_round(
    binary: str, system: str, field_: list[Player], played: int
) -> tuple[list[tuple[int, int]], int | None]:
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "in.trf", Path(tmp) / "out.txt"
        src.write_text(trf_of(field_, played))
        done = subprocess.run(
            [binary, f"--{system}", str(src), "-p", str(out)], capture_output=True, text=True
        )
        if done.returncode != 0:
            raise RuntimeError(f"bbpPairings --{system} failed ({done.returncode}): {done.stderr.strip()}")
        lines = out.read_text().split()
    count, numbers = int(lines[0]), [int(x) for x in lines[1:]]
    pairs: list[tuple[int, int]] = []
    bye = None
    for k in range(count):
        w, b = numbers[2 * k], numbers[2 * k + 1]
        if b == 0:
            bye = w
        else:
            pairs.append((w, b))
    return pairs, bye


def cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def crossings(field_: list[Player], pairs: list[tuple[int, int]], bye: int | None) -> int:
    """Floats counted per score group crossed: the groups between a pair's two scores, summed over
    the pairs (a pair of 2.5 and 1.0 across groups 2.0 and 1.5 is three floats)."""
    groups = score_groups(p.score for p in field_ if p.start != bye)
    return sum(abs(groups[field_[a - 1].score] - groups[field_[b - 1].score]) for a, b in pairs)


def exact_minimum(field_: list[Player], bye: int | None) -> int:
    """The fewest floats (``crossings``) of any rematch-free pairing of this round, the same bye: a
    max-weight matching over every rematch-free pair (the complete graph, without the sparse window)."""
    rest = [p for p in field_ if p.start != bye]
    groups = score_groups(p.score for p in rest)
    top = len(groups)
    graph = rx.PyGraph()
    graph.add_nodes_from(range(len(rest)))
    graph.add_edges_from(
        [
            (i, j, top - abs(groups[rest[i].score] - groups[rest[j].score]))
            for i in range(len(rest))
            for j in range(i + 1, len(rest))
            if rest[j].start not in rest[i].opponents
        ]
    )
    matching = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    if 2 * len(matching) < len(rest):
        return -1  # no rematch-free pairing exists
    return sum(abs(groups[rest[a].score] - groups[rest[b].score]) for a, b in matching)


def play(
    engine: str, n: int, seed: str, binary: str | None, exact: bool
) -> tuple[list[Player], list[RoundFigures]]:
    field_ = players(n, seed)
    figures: list[RoundFigures] = []
    for rnd in range(ROUNDS):
        if engine == "arbiter":
            pairs, bye, cpu = arbiter_round(field_)
        else:
            assert binary is not None
            t = cpu_children()
            pairs, bye = bbp_round(binary, engine, field_, rnd)
            cpu = cpu_children() - t
        gaps = [abs(field_[a - 1].score - field_[b - 1].score) for a, b in pairs]
        minimum = exact_minimum(field_, bye) if exact and rnd == ROUNDS - 1 else None
        figures.append(
            RoundFigures(
                floats=crossings(field_, pairs, bye),
                floated_pairs=sum(1 for g in gaps if g),
                minimum=minimum,
                gap_total=sum(gaps),
                gap_max=max(gaps, default=0),
                cpu=cpu,
            )
        )
        for w, b in pairs:
            pw, pb = field_[w - 1], field_[b - 1]
            got = outcome(seed, rnd, pw, pb)
            pw.score += got
            pb.score += 1 - got
            pw.opponents.add(b)
            pb.opponents.add(w)
            pw.seats.append(0)
            pb.seats.append(1)
            r = {1.0: ("1", "0"), 0.5: ("=", "="), 0.0: ("0", "1")}[got]
            pw.games.append(TrfGame(b, "w", r[0]))
            pb.games.append(TrfGame(w, "b", r[1]))
        if bye is not None:
            field_[bye - 1].score += 1
            field_[bye - 1].byes += 1
            field_[bye - 1].games.append(TrfGame(None, "-", "U"))
    return field_, figures


def seat_figures(field_: list[Player]) -> tuple[int, int]:
    wide = sum(1 for p in field_ if abs(p.seats.count(0) - p.seats.count(1)) > 1)
    runs = sum(
        1
        for p in field_
        if any(p.seats[k] == p.seats[k + 1] == p.seats[k + 2] for k in range(len(p.seats) - 2))
    )
    return wide, runs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="100 and 1,000 entries only")
    ap.add_argument(
        "--seeds",
        type=int,
        default=1,
        help="also play each size's tournaments under this many seeds in all and print the mean seat balance"
        " (one tournament's |d|>1 moves by a dozen from seed to seed at 1,000 entries)",
    )
    ap.add_argument(
        "--bbp-max",
        type=int,
        default=1000,
        help="largest field paired by bbpPairings too (its Dutch takes minutes a round at 1,000 here)",
    )
    args = ap.parse_args()
    sizes = (100, 1000) if args.quick else (100, 1000, 4000)
    binary: str | None = os.environ.get("ARBITER_BBPPAIRINGS", DEFAULT_BBP)
    if not (binary and os.path.isfile(binary) and os.access(binary, os.X_OK)):
        print(
            f"bbpPairings not found at {binary!r} (set ARBITER_BBPPAIRINGS): Dutch and Burstein columns skipped"
        )
        binary = None
    print(
        f"each engine pairs its own {ROUNDS}-round tournament under the same seeded results; round {ROUNDS}'s"
        " floats (score groups crossed, summed over the pairs) beside the exact minimum for that history,"
        " pairs floated, score gaps; seats after the last round; CPU seconds of the last round"
    )
    print(
        f"{'entries':>7} {'engine':>8} | {'floats':>6} {'min':>4} {'pairs':>5} | {'gap sum':>7} {'max':>4} |"
        f" {'|d|>1':>5} {'3-row':>5} | {'cpu r8':>8} {'cpu all':>8}"
    )
    cpu8: dict[tuple[int, str], float] = {}
    for n in sizes:
        spread: dict[str, list[int]] = {}
        engines = ["arbiter", *(["dutch", "burstein"] if binary and n <= args.bbp_max else [])]
        if binary and n > args.bbp_max:
            print(f"{n:>7} Dutch and Burstein skipped above --bbp-max {args.bbp_max}")
        for engine in engines:
            field_, figures = play(engine, n, f"quality:{n}", binary, exact=n <= EXACT_UP_TO)
            last = figures[-1]
            wide, runs = seat_figures(field_)
            spread[engine] = [wide]
            cpu8[(n, engine)] = last.cpu
            minimum = "-" if last.minimum is None else str(last.minimum)
            print(
                f"{n:>7} {engine:>8} | {last.floats:>6} {minimum:>4} {last.floated_pairs:>5} |"
                f" {last.gap_total:>7.1f} {last.gap_max:>4.1f} | {wide:>5} {runs:>5} |"
                f" {last.cpu:>8.3f} {sum(f.cpu for f in figures):>8.3f}",
                flush=True,
            )
        for engine in engines if args.seeds > 1 else ():
            if cpu8[(n, engine)] > REPEAT_CPU:
                print(f"{n:>7} {engine:>8} | not repeated: {cpu8[(n, engine)]:.0f} CPU-s a round")
                continue
            for k in range(1, args.seeds):
                field_, _ = play(engine, n, f"quality:{n}:{k}", binary, exact=False)
                spread[engine].append(seat_figures(field_)[0])
            w = spread[engine]
            print(
                f"{n:>7} {engine:>8} | |d|>1 over {len(w)} seeds: mean {sum(w) / len(w):.1f},"
                f" {min(w)}-{max(w)}",
                flush=True,
            )
    if (1000, "burstein") in cpu8:
        ratio = cpu8[(1000, "burstein")] / max(cpu8[(1000, "arbiter")], 1e-9)
        print(f"round {ROUNDS} at 1,000 entries: Burstein / Arbiter CPU = {ratio:.1f}x (target >= 10x)")
    big = 10_000
    field_ = players(big, "quality:big")
    for rnd in range(ROUNDS - 1):
        pairs, bye, _ = arbiter_round(field_)
        for w, b in pairs:
            got = outcome("quality:big", rnd, field_[w - 1], field_[b - 1])
            field_[w - 1].score += got
            field_[b - 1].score += 1 - got
            field_[w - 1].opponents.add(b)
            field_[b - 1].opponents.add(w)
            field_[w - 1].seats.append(0)
            field_[b - 1].seats.append(1)
        if bye is not None:
            field_[bye - 1].score += 1
            field_[bye - 1].byes += 1
    _, _, cpu = arbiter_round(field_)
    print(f"round {ROUNDS} at {big:,} entries: Arbiter {cpu:.3f} CPU-s (target < 1 s)")


if __name__ == "__main__":
    main()
