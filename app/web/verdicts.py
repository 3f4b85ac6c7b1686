"""A game log's verdict as the console's verdict page shows it before it is recorded (docs/web.md
"One copy of every rule", its game logs), in words, read from what the adjudicator answers, no rule
of its own: a Strategic Titan verdict — who won and why, each player's standing at the end
(strategic-titan.md; ``ReplayResult.to_dict``); a Titan: The Arena one — who won, how each tie was
broken, the deaths, kills and bets (titan-arena.md; ``Verdict.as_dict``); a Battle Royal one — the
last one standing, who held the token first, when each player fell (battlebooks.md;
``battlebooks_royal.Verdict``); a Rite of Command one — who won and by which rule (two rings
win the game), each ring's fights and powers, each player's rings and wagers at the end
(rite-of-command.md; ``rite_of_command.Verdict.as_dict``). The adjudicator itself is said by its
game's name (``adjudicator_named``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.web.i18n_verdicts import adjudicator_key


@dataclass(frozen=True)
class TitanPlayer:
    """One player of a Strategic Titan verdict, at the end of the record."""

    name: str
    place: int
    points: int
    alive: bool
    eliminated_at: int | None
    resurrected: int
    legion_markers: int
    legions_on_board: int
    mulligans: int
    numbers: list[int | str]  # every turn's movement number ("pass" too), retracted ones left out


@dataclass(frozen=True)
class TitanVerdict:
    ended_by: str | None  # "end" (the players ended it) or "elimination" (one player left)
    events: int
    players: list[TitanPlayer]  # by place, then seat

    @property
    def first(self) -> list[TitanPlayer]:
        return [p for p in self.players if p.place == 1]

    def outcome(self, t: Callable[..., str]) -> str:
        """Who won, and why, in the page's words."""
        first = self.first
        names = ", ".join(p.name for p in first)
        if len(first) == len(self.players):
            return t("st_draw", points=first[0].points)
        if len(first) > 1:
            return t("st_shared", names=names, points=first[0].points)
        winner = first[0]
        standing = [p for p in self.players if p.alive]
        if self.ended_by == "elimination" or len(standing) == 1:
            return t("st_win_last", name=winner.name)
        runner = next(p for p in self.players if p is not winner and p.alive)
        return t(
            "st_win_points", name=winner.name, points=winner.points, other=runner.name, theirs=runner.points
        )

    def status(self, player: TitanPlayer, t: Callable[..., str]) -> str:
        """Whether the player was still in the game at its end, and their resurrections."""
        said = (
            t("st_standing")
            if player.alive
            else t("st_eliminated_at", n=player.eliminated_at)
            if player.eliminated_at is not None
            else t("st_eliminated")
        )
        return said + (t("st_resurrected", n=player.resurrected) if player.resurrected else "")


def strategic_titan(details: dict[str, Any]) -> TitanVerdict | None:
    """The verdict's facts, from the adjudicator's answer (``None`` when it is not one: the raw
    details are then shown as they are)."""
    state = details.get("state") if isinstance(details, dict) else None
    places = (state or {}).get("places")
    if not isinstance(state, dict) or not isinstance(places, list) or not state.get("players"):
        return None
    players = [
        TitanPlayer(
            name=str(p["name"]),
            place=int(places[i]),
            points=int(p.get("points", 0)),
            alive=bool(p.get("alive", True)),
            eliminated_at=p.get("eliminated_at"),
            resurrected=int(p.get("resurrected", 0)),
            legion_markers=int(p.get("legion_markers", 0)),
            legions_on_board=int(p.get("legions_on_board", 0)),
            mulligans=int(p.get("mulligans", 0)),
            numbers=list(p.get("movement_numbers", [])),
        )
        for i, p in enumerate(state["players"])
    ]
    ordered = sorted(players, key=lambda p: p.place)  # stable: seat order within a place
    return TitanVerdict(state.get("ended_by"), int(state.get("events", 0)), ordered)


# --------------------------------------------------------------------------- Titan: The Arena
@dataclass(frozen=True)
class ArenaPlayer:
    """One player of a Titan: The Arena verdict: the place the log gives, its score and kills."""

    name: str
    place: int
    score: float
    kills: int


@dataclass(frozen=True)
class ArenaTie:
    """One boundary inside a tied group: ``above`` ranks over ``below``, both on ``score``, by
    ``rule`` ("bets": on ``creature``; "last_play"; "dice"), comparing ``values``."""

    above: str
    below: str
    score: float
    rule: str
    creature: str | None
    values: tuple[float, float]


@dataclass(frozen=True)
class ArenaBets:
    creature: str
    bets: int
    points: float
    secret: int


@dataclass(frozen=True)
class ArenaVerdict:
    variant: str
    tie_rule: str
    players: list[ArenaPlayer]  # by place
    ties: list[ArenaTie]
    deaths: list[str]  # in the order the creatures died
    bets: list[ArenaBets]

    def outcome(self, t: Callable[..., str]) -> str:
        """Who won, and by what: the score alone, or the tie-break that split a shared top score."""
        winner, *rest = self.players
        level = [p.name for p in rest if p.score == winner.score]
        if level:
            return t("ta_win_tied", name=winner.name, others=", ".join(level), score=f"{winner.score:g}")
        if not rest:
            return t("ta_win_alone", name=winner.name, score=f"{winner.score:g}")
        return t(
            "ta_win",
            name=winner.name,
            score=f"{winner.score:g}",
            other=rest[0].name,
            theirs=f"{rest[0].score:g}",
        )

    def rules(self, t: Callable[..., str]) -> str:
        return t(
            "ta_rules",
            variant=t("ta_variant_" + self.variant.replace("-", "_")),
            rule=t("ta_rule_" + self.tie_rule),
        )

    def died(self, t: Callable[..., str]) -> str:
        return t("ta_deaths", creatures=", ".join(self.deaths)) if self.deaths else t("ta_no_deaths")

    def tie(self, tie: ArenaTie, t: Callable[..., str]) -> str:
        """Why ``tie.above`` ranks over ``tie.below``, in the page's words."""
        va, vb = (f"{v:g}" for v in tie.values)
        said = {"a": tie.above, "b": tie.below, "score": f"{tie.score:g}", "va": va, "vb": vb}
        if tie.rule == "bets":
            at = self.deaths.index(tie.creature) + 1 if tie.creature in self.deaths else 0
            when = t("ta_died_last") if at == len(self.deaths) else t("ta_died_n", n=at, of=len(self.deaths))
            return t("ta_tie_bets", creature=tie.creature, when=when, **said)
        return t("ta_tie_" + ("last_play" if tie.rule == "last_play" else "dice"), **said)


def titan_arena(details: dict[str, Any], names: dict[str, str]) -> ArenaVerdict | None:
    """The verdict's facts from the adjudicator's answer (``Verdict.as_dict``), each player as the
    log names them — an entry id said as its name (``names``); ``None`` when it is not one."""
    places = details.get("places") if isinstance(details, dict) else None
    if not isinstance(places, list) or not places or not isinstance(details.get("tiebreaks"), list):
        return None
    stats = details.get("statistics") or {}
    kills = stats.get("kills") or {}

    def said(label: Any) -> str:
        return names.get(str(label), str(label))

    players = [
        ArenaPlayer(said(p["player"]), int(p["place"]), float(p["score"]), int(kills.get(p["player"], 0)))
        for p in sorted(places, key=lambda p: int(p["place"]))
    ]
    ties = [
        ArenaTie(
            above=said(tb["order"][0]),
            below=said(tb["order"][1]),
            score=float(tb["score"]),
            rule=str(tb["rule"]),
            creature=str(tb["decided_by"]) if tb["rule"] == "bets" else None,
            values=(float(tb["values"][tb["order"][0]]), float(tb["values"][tb["order"][1]])),
        )
        for tb in details["tiebreaks"]
    ]
    bets = [
        ArenaBets(c, int(v.get("bets", 0)), float(v.get("points", 0)), int(v.get("secret", 0)))
        for c, v in (stats.get("bets") or {}).items()
    ]
    return ArenaVerdict(
        str(details.get("variant") or "titan-the-arena"),
        str(details.get("tie_rule") or "wbc"),
        players,
        ties,
        [str(c) for c in details.get("deaths") or []],
        bets,
    )


# --------------------------------------------------------------------------- Battle Royal
@dataclass(frozen=True)
class RoyalPlayer:
    """One seat of a Battle Royal verdict: its place, when it fell (and in whose attack), its body
    points after the last turn."""

    name: str
    place: int
    out_at: int | None  # the turn it was eliminated at, from 1; None: still standing
    attacker: str | None  # the token holder of that turn
    body_points: float


@dataclass(frozen=True)
class RoyalVerdict:
    first: str  # who held the token first
    turns: int
    players: list[RoyalPlayer]  # by place, then seat

    def outcome(self, t: Callable[..., str]) -> str:
        top = [p for p in self.players if p.place == 1]
        if len(top) > 1:
            return t("br_shared", names=", ".join(p.name for p in top), turn=top[0].out_at or self.turns)
        return t("br_win", name=top[0].name, points=f"{top[0].body_points:g}")

    def how(self, t: Callable[..., str]) -> str:
        return t("br_how", name=self.first, turns=self.turns)

    def status(self, player: RoyalPlayer, t: Callable[..., str]) -> str:
        if player.out_at is None:
            return t("br_standing")
        return t("br_out_at", n=player.out_at, name=player.attacker or "")


def battle_royal(details: dict[str, Any], seats: list[str]) -> RoyalVerdict | None:
    """The verdict's facts from the checked record (``Verdict.as_dict``), each seat said by its
    player's name (``seats``: the table's names, seat 0 first); ``None`` when it is not one."""
    places = details.get("places") if isinstance(details, dict) else None
    holders = details.get("holders") if isinstance(details, dict) else None
    if not isinstance(places, list) or not isinstance(holders, list) or len(places) != len(seats):
        return None
    out = {int(e["seat"]): int(e["turn"]) for e in details.get("eliminations") or []}
    body = list(details.get("body_points") or [0] * len(seats))
    players = [
        RoyalPlayer(
            name=seats[s],
            place=int(places[s]),
            out_at=out[s] + 1 if s in out else None,
            attacker=seats[int(holders[out[s]])] if s in out and out[s] < len(holders) else None,
            body_points=float(body[s]),
        )
        for s in range(len(seats))
    ]
    first = int(details.get("first") or 0)
    return RoyalVerdict(seats[first], len(holders), sorted(players, key=lambda p: p.place))


# --------------------------------------------------------------------------- Rite of Command
@dataclass(frozen=True)
class DuelSoldier:
    """A soldier of a ring, as armed: its card, its player's name, the weapons it took, and its
    place in the ring's line (from 1) where that player has two of the card there."""

    card: str
    owner: str
    weapons: list[str]
    at: int | None = None

    def said(self, t: Callable[..., str]) -> str:
        key = "roc_soldier" + ("_at" if self.at else "") + ("_armed" if self.weapons else "")
        return t(key, name=self.owner, card=self.card, at=self.at, weapons=t("roc_comma").join(self.weapons))


@dataclass(frozen=True)
class DuelFight:
    won: DuelSoldier
    lost: DuelSoldier
    powers: tuple[int, int]  # the winner's, the loser's


@dataclass(frozen=True)
class DuelRing:
    number: int
    winner: str | None  # the player's name; None: nobody's (no soldier in it)
    soldiers: list[DuelSoldier]  # in the ring's line
    fights: list[DuelFight]


@dataclass(frozen=True)
class DuelPlayer:
    """A player at the end: their place, rings won, their stake and what they receive."""

    name: str
    place: int
    rings: int
    stake: str | None
    receives: str | None


def _stake(value: Any) -> str:
    return f"{value:g}" if isinstance(value, int | float) and not isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class DuelVerdict:
    winner: str | None
    players: list[DuelPlayer]  # by place, then seat
    rings: list[DuelRing]
    wagered: bool

    def outcome(self, t: Callable[..., str]) -> str:
        """Who won, by the rule that decides it (two rings of three), or why it is a draw."""
        one, two = self.players
        if self.winner is None:
            nobody = sum(1 for r in self.rings if r.winner is None)
            return t("roc_draw", name=one.name, won=one.rings, other=two.name, theirs=two.rings, none=nobody)
        return t("roc_win", name=one.name, won=one.rings, other=two.name, theirs=two.rings)

    def ring(self, ring: DuelRing, t: Callable[..., str]) -> str:
        """The ring's winner and how: each fight with both powers, or the soldiers left unopposed."""
        if ring.winner is None:
            return t("roc_ring_nobody", n=ring.number)
        how = [
            t(
                "roc_fight_level" if f.powers[0] == f.powers[1] else "roc_fight",
                a=f.won.said(t),
                b=f.lost.said(t),
                pa=f.powers[0],
                pb=f.powers[1],
            )
            for f in ring.fights
        ] or [t("roc_unopposed", soldiers=t("roc_comma").join(s.said(t) for s in ring.soldiers))]
        return t("roc_ring_won", n=ring.number, name=ring.winner, how=t("roc_then").join(how))

    def wagers(self, t: Callable[..., str]) -> str:
        if not self.wagered:
            return ""
        return t("roc_wagers_win", name=self.winner) if self.winner else t("roc_wagers_back")


def _player_named(player: Any, seats: list[str]) -> str | None:
    """Player 1 or 2 by their seat's name (player 1 is seat 0); ``None`` for nobody."""
    return seats[int(player) - 1] if player in (1, 2) else None


def _duel_ring(ring: dict[str, Any], seats: list[str]) -> DuelRing:
    """One ring of the verdict: its soldiers as armed, each fight's winner first, its winner."""
    line = ring.get("armed") or []
    count = Counter((a["soldier"], a["owner"]) for a in line)
    armed = {
        int(a["position"]): DuelSoldier(
            str(a["soldier"]),
            seats[int(a["owner"]) - 1],
            list(a["weapons"]),
            int(a["position"]) + 1 if count[(a["soldier"], a["owner"])] > 1 else None,
        )
        for a in line
    }
    fights = []
    for f in ring.get("fights") or []:
        one, two = armed[int(f["p1_position"])], armed[int(f["p2_position"])]
        powers = (int(f["p1_power"]), int(f["p2_power"]))
        won = f["winner"] == 1
        fights.append(DuelFight(one, two, powers) if won else DuelFight(two, one, (powers[1], powers[0])))
    return DuelRing(int(ring["ring"]), _player_named(ring.get("winner"), seats), list(armed.values()), fights)


def rite_of_command(details: dict[str, Any], seats: list[str]) -> DuelVerdict | None:
    """The verdict's facts from the adjudicator's answer (``Verdict.as_dict``), player 1 said by the
    name of seat 0 and player 2 by seat 1's (``seats``); ``None`` when it is not one."""
    rings = details.get("rings") if isinstance(details, dict) else None
    won = details.get("rings_won") if isinstance(details, dict) else None
    if not isinstance(rings, list) or not isinstance(won, dict) or len(seats) != 2:
        return None

    said_rings = [_duel_ring(r, seats) for r in rings]
    wagers = details.get("wagers") or {}
    stakes, goes_to, payouts = wagers.get("stakes") or {}, wagers.get("goes_to") or {}, wagers.get("payouts")
    winner = details.get("winner")
    players = []
    for p in (1, 2):
        got = [_stake(stakes[q]) for q in ("1", "2") if q in stakes and goes_to.get(q) == p]
        receives = _stake(payouts[str(p)]) if payouts else " + ".join(got) or "—"
        players.append(
            DuelPlayer(
                name=seats[p - 1],
                place=1 if winner in (None, p) else 2,
                rings=int(won.get(str(p), 0)),
                stake=_stake(stakes[str(p)]) if str(p) in stakes else None,
                receives=receives if wagers else None,
            )
        )
    ordered = sorted(players, key=lambda pl: pl.place)  # stable: seat order within a place
    return DuelVerdict(_player_named(winner, seats), ordered, said_rings, bool(wagers))


def adjudicator_named(adjudicator: str | None, t: Callable[..., str]) -> str | None:
    """The adjudicator said by its game's name (``adjudicator_<name>``), its key where it has none."""
    if adjudicator is None:
        return None
    key = adjudicator_key(adjudicator)
    said = t(key)
    return adjudicator if said == key else said


def in_words(
    adjudicator: str | None, details: dict[str, Any] | None, names: dict[str, str], seats: list[str]
) -> dict[str, Any]:
    """The verdict's facts to say in words, under the adjudicator's kind ("titan", "arena",
    "royal", "duel"; empty when its verdict has no words here, and is shown as it is): ``names`` are the
    entries' names by id, ``seats`` the table's names in seat order."""
    shown = details or {}
    facts: Any = None
    if adjudicator == "strategic-titan":
        facts = ("titan", strategic_titan(shown))
    elif adjudicator == "titan-arena":
        facts = ("arena", titan_arena(shown, names))
    elif adjudicator == "battlebooks-royal":
        facts = ("royal", battle_royal(shown, seats))
    elif adjudicator == "rite-of-command":
        facts = ("duel", rite_of_command(shown, seats))
    return {facts[0]: facts[1]} if facts and facts[1] is not None else {}
