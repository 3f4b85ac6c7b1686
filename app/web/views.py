"""What a page shows, gathered from the services the API reads through (no rule of its own)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from markupsafe import Markup
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import ratings as rating_core
from app.core.access import Principal
from app.core.errors import DomainError
from app.core.games import battlebooks as bb_games
from app.core.games import battlebooks_royal as bb_royal
from app.core.pairing.double_elimination import DoubleBracket
from app.core.stage_details import BracketDetails
from app.core.vocabulary import (
    LEAGUE_TYPES,
    POOL_TYPES,
    SEASON_TYPES,
    EventStatus,
    LiveEventType,
    MatchStatus,
    StageFormatName,
    StageStatus,
)
from app.db.models import Match, RatingPool, Stage
from app.services import events as event_svc
from app.services import exports as export_svc
from app.services import rite_of_command as roc_svc
from app.services import rounds as round_svc
from app.services import standings as standings_svc
from app.services.events import EntryView, EventView
from app.services.exports import CrossTableView
from app.services.formats.base import Display, StageFormat
from app.services.presets import bga as bga_svc
from app.services.presets import titan_arena as titan_svc
from app.services.reads import details_of, game_of, stage_settings, stages_of
from app.services.registry import registry_of
from app.services.rite_of_command import MatchDeal
from app.services.rounds import RoundView
from app.services.standings import StandingsView
from app.web.brackets import bracket_svg

LIVE_TYPES = ",".join(t.value for t in LiveEventType if t not in LEAGUE_TYPES)
# a season's page and embed redraw on each of its changes, and when its stream says to read it again;
# so do a pool's leaderboard and its embed
SEASON_LIVE_TYPES = ",".join([*sorted(SEASON_TYPES), "stream.reset"])
POOL_LIVE_TYPES = ",".join([*sorted(POOL_TYPES), "stream.reset"])
OPEN = (MatchStatus.PENDING, MatchStatus.REPORTED, MatchStatus.DISPUTED)
SCORE_CARD_PRESETS = frozenset(bb_games.PRESETS) | frozenset(bb_royal.PRESETS)
HERO_PRESETS = frozenset(bb_games.PRESETS)  # heroes declared before each game (battlebooks.md)


@dataclass
class Table:
    """One match as a page shows it: its seats in order, with names and results."""

    match: Match
    round: int
    stage: Stage
    seats: list[dict[str, Any]]

    @property
    def open(self) -> bool:
        return self.match.status in OPEN


def tables_of(view: RoundView) -> list[Table]:
    out = []
    for m in view.matches:
        seats = [
            {
                "entry_id": s.entry_id,
                "name": view.names.get(s.entry_id, ""),
                "seat": s.seat,
                "character": s.character,
                "first": s.first_token,
                "place": s.place,
                "score": s.score,
                "body_points": s.body_points,
                "differential": s.differential,
                "violation": s.violation,
            }
            for s in sorted(m.seats, key=lambda s: s.seat)
        ]
        out.append(Table(m, view.round.number, view.stage, seats))
    return out


@dataclass
class TitanPage:
    """A WBC Titan: The Arena event (wbc-hmwp): its heats, the semifinal's make-up and tables, the
    final and every place, as the preset's reads give them (titan-arena.md)."""

    heats: list[Table]
    make_up: dict[str, Any]  # titan_arena.semifinal: seeding, winners, alternates, seats, tables
    semifinal: list[Table]
    final: list[Table]
    final_rules: dict[str, Any] | None
    places: dict[str, Any]  # titan_arena.places
    semifinal_note: str | None = None

    @property
    def roles(self) -> dict[str, str]:
        """Each seeded entry's role: ``winner`` or ``alternate`` (seated in the semifinal)."""
        return {r["entry_id"]: r["role"] for r in self.make_up["seeding"] if r["role"]}

    @property
    def seeds(self) -> dict[str, int]:
        return {r["entry_id"]: r["seed"] for r in self.make_up["seeding"]}


@dataclass
class PlanGroup:
    """One group of a stage's released schedule: its rounds, each with its tables."""

    group: str | None
    rounds: list[tuple[int, list[Table]]]


@dataclass
class BgaPage:
    """A Board Game Arena round robin (bga-round-robin.md): the summary the API answers
    (``GET /v1/events/{id}/bga``) and every released game by stage, group and round."""

    summary: dict[str, Any]
    plan: list[tuple[Stage, list[PlanGroup]]]
    deadlines: dict[str, str] = field(default_factory=dict)  # join_deadline, final_deadline as shown

    def name(self, entry_id: str) -> str:
        return str(self.summary["names"].get(entry_id, entry_id))


def shown_time(iso: str) -> str:
    """A time in the settings as a page shows it: "2026-12-20 23:59 UTC", or with its offset."""
    at = datetime.fromisoformat(iso)
    offset = at.strftime("%z")
    zone = "UTC" if offset in ("", "+0000") else f"{offset[:3]}:{offset[3:]}"
    return f"{at:%Y-%m-%d %H:%M} {zone}"


@dataclass
class EventPage:
    """The public event page, the projector and the printed sheets."""

    view: EventView
    stages: list[Stage]
    rounds: list[RoundView]
    standings: StandingsView | None
    crosstable: CrossTableView | None = None
    formats: Mapping[StageFormatName, StageFormat] = field(default_factory=dict)  # the registry's
    current: list[Table] = field(default_factory=list)  # the current round's tables
    past: list[tuple[RoundView, list[Table]]] = field(default_factory=list)
    titan: TitanPage | None = None
    bga: BgaPage | None = None
    adjudicated: bool = False  # the game's results can be its game log, judged by its adjudicator
    adjudicator: str | None = None  # the console: that adjudicator's name (a Rite of Command deal)
    can_pair: bool = False  # "Pair the next round" has something to do (the active stage's format)
    concurrent: bool = False  # the active stage's tables are opened while others play (heats)
    released: bool = False  # every game of the active stage is out at once (``release: all``)
    rating_pool: str | None = None  # the event page: the overall pool it rates into, once it exists

    @property
    def score_cards(self) -> bool:
        """BATTLEBOOKS events print score cards (battlebooks.md "Score cards")."""
        return (self.event.preset or "") in SCORE_CARD_PRESETS

    @property
    def heroes(self) -> bool:
        """BATTLEBOOKS Swiss events declare each seat's hero before the game (battlebooks.md
        "Score cards"; the service refuses any other event)."""
        return (self.event.preset or "") in HERO_PRESETS

    @property
    def trf(self) -> bool:
        """A TRF-16 file exists for the stage the standings are of: a 2-seat stage of a format that
        declares its TRF kind (``StageFormat.trf``, the export's own condition)."""
        stage = next((s for s in self.stages if self.standings and s.index == self.standings.stage), None)
        if stage is None or stage_settings(stage).table_size != 2:
            return False
        fmt = self.formats.get(StageFormatName(stage.format))
        return fmt is not None and fmt.trf is not None

    @property
    def event(self) -> Any:
        return self.view.event

    @property
    def whole_stage(self) -> bool:
        """Whether the current tables are the active stage's every table, of several rounds."""
        return self.concurrent or self.released

    @property
    def current_round(self) -> RoundView | None:
        return self.rounds[-1] if self.rounds else None

    def display(self, stage: Stage) -> Display:
        """How the page shows the stage, as its format declares (``StageFormat.display``)."""
        return self.formats[StageFormatName(stage.format)].display

    def label(self, stage: Stage) -> str:
        """The key of the stage's format's name in the pages' words (``StageFormat.label``)."""
        return self.formats[StageFormatName(stage.format)].label

    def stage_rounds(self, stage: Stage) -> list[tuple[RoundView, list[Table]]]:
        return [(r, tables_of(r)) for r in self.rounds if r.stage.id == stage.id]

    def bracket(self, stage: Stage, t: Callable[..., str]) -> Markup:
        """The stage's bracket as SVG (``app/web/brackets.py``), in the page's words."""
        drawn = self.stage_rounds(stage)
        rounds = [(r.round.number, tables) for r, tables in drawn]
        label = t("bracket_of", stage=t(self.label(stage)))
        bands = band_labels = None
        details = details_of(stage)
        if (
            stage.format == StageFormatName.DOUBLE_ELIMINATION
            and isinstance(details, BracketDetails)
            and details.bracket is not None
        ):
            # each match's path as the drawn bracket names it (its grand final continues the winners')
            path = {m.key: m.bracket for m in DoubleBracket.from_dict(details.bracket).matches}
            bands = {
                str(table.match.id): "losers" if path.get(str(key)) == "losers" else "winners"
                for r, tables in drawn
                for key, table in zip(
                    ((r.round.details or {}).get("pairing") or {}).get("matches", []),
                    sorted(tables, key=lambda tb: tb.match.table),
                    strict=False,
                )
            }
            band_labels = {"winners": t("winners_bracket"), "losers": t("losers_bracket")}
        svg = bracket_svg(rounds, label, lambda n: t("round_n", n=n), t("placed_first"), bands, band_labels)
        return Markup(svg)  # noqa: S704 - every text in it is escaped

    def fields(self, table: Table) -> tuple[str, ...]:
        """What a result at this table records besides places, where the preset scores it: a
        score when a tie-break reads scores (or the scheme is the game's score), body points and
        the differential when the differential decides ranks."""
        return result_fields(self.event.settings or {}, table.stage.settings or {})

    @property
    def violations(self) -> bool:
        """Whether a result records a seat's violation (``violation_points`` in the settings:
        bga-round-robin.md "Violations")."""
        return "violation_points" in (self.event.settings or {})

    @property
    def disputes(self) -> int:
        return sum(1 for t in self.current if t.match.status == MatchStatus.DISPUTED)


def result_fields(event_settings: dict[str, Any], stage_settings: dict[str, Any]) -> tuple[str, ...]:
    chain = stage_settings.get("tiebreaks", event_settings.get("tiebreaks")) or []
    scoring = stage_settings.get("scoring", event_settings.get("scoring")) or {}
    out: list[str] = []
    if scoring.get("scheme") == "game_score" or any("score" in c or "points_behind" in c for c in chain):
        out.append("score")
    if "differential" in chain:
        out.extend(("body_points", "differential"))
    return tuple(out)


async def event_page(
    session: AsyncSession, event_id: str, preset_views: bool = False, fresh: bool = False
) -> EventPage:
    """What the event's pages show; ``preset_views`` adds a WBC event's or a BGA event's own views
    (the event page shows them; the projector and the printed sheets keep to the current round).
    The standings come from the process's cache, as the API's read takes them, unless ``fresh``
    (a page shown in a transaction that has changed the event: the cache is for reads only)."""
    view = await event_svc.get_event_view(session, event_id)
    stages = await stages_of(session, event_id)
    rounds = await round_svc.event_rounds(session, event_id)
    standings = None
    if view.event.status != EventStatus.REGISTRATION:
        read = standings_svc.event_standings if fresh else standings_svc.cached_standings
        standings = await read(session, event_id)
    crosstable = None
    formats = registry_of(session).formats
    stage = next((s for s in stages if standings is not None and s.index == standings.stage), None)
    if stage is not None and formats[StageFormatName(stage.format)].display == Display.CROSS_TABLE:
        try:
            crosstable = await export_svc.crosstable_view(session, event_id, stage.index)
        except DomainError:  # a multi-seat design has no two-seat cross-table
            crosstable = None
    page = EventPage(view, stages, rounds, standings, crosstable, formats)
    active = next((s for s in stages if s.status == StageStatus.ACTIVE), None)
    fmt = registry_of(session).format_of(active) if active is not None else None
    in_active = [r for r in rounds if active is not None and r.stage.id == active.id]
    if fresh:  # the console: whether a table's result can be its game log, whether to pair
        page.adjudicator = (await game_of(session, view.event)).adjudicator or registry_of(session).rules_for(
            view.event
        ).own_adjudicator
        page.adjudicated = page.adjudicator is not None
        page.can_pair = (
            active is not None
            and fmt is not None
            and view.event.preset != titan_svc.PRESET  # its heats are opened by choosing players
            and fmt.nothing_to_pair(active) is None
            and not fmt.all_paired(active, len(in_active))
        )
    # every table of the active stage at once, on every page and sheet (the console, the
    # projector, the printed pairings and slips, the round embed), when its tables are opened
    # while others play (heats) or all its games are released together (``release: all``)
    page.concurrent = fmt is not None and fmt.concurrent_tables
    page.released = active is not None and stage_settings(active).releases_all
    if page.whole_stage and active is not None:
        page.current = [t for r in in_active for t in tables_of(r)]
        page.past = [(r, tables_of(r)) for r in reversed(rounds) if r.stage.id != active.id]
    elif rounds:
        page.current = tables_of(rounds[-1])
        page.past = [(r, tables_of(r)) for r in reversed(rounds[:-1])]
    if not preset_views:
        return page
    plan = rating_core.pool_plan(view.event.game_key, view.event.preset, view.event.settings)
    if plan and plan.overall and await session.get(RatingPool, plan.overall) is not None:
        page.rating_pool = plan.overall  # formats.md "Ratings": a link to its leaderboard
    if stages and view.event.preset == titan_svc.PRESET:
        page.titan = await titan_page(session, page)
    elif view.event.preset in (bga_svc.TWO_P, bga_svc.THREE_P):
        page.bga = await bga_page(session, page)
    return page


def _stage_tables(page: EventPage, index: int) -> list[Table]:
    return [t for s in page.stages if s.index == index for _, tables in page.stage_rounds(s) for t in tables]


async def titan_page(session: AsyncSession, page: EventPage) -> TitanPage:
    """The reads behind ``GET /v1/events/{id}/titan-arena/semifinal``, ``…/places`` and
    ``…/titan-arena/final-rules``, with the tables of each stage."""
    event_id = page.event.id
    final = next((s for s in page.stages if s.index == titan_svc.FINAL), None)
    semi = next((s for s in page.stages if s.index == titan_svc.SEMIFINAL), None)
    return TitanPage(
        heats=_stage_tables(page, titan_svc.HEATS),
        make_up=await titan_svc.semifinal(session, event_id),
        semifinal=_stage_tables(page, titan_svc.SEMIFINAL),
        final=_stage_tables(page, titan_svc.FINAL),
        final_rules=await titan_svc.final_rules(session, event_id) if final is not None else None,
        places=await titan_svc.places(session, event_id),
        semifinal_note=details_of(semi).note if semi is not None else None,
    )


async def bga_page(session: AsyncSession, page: EventPage) -> BgaPage:
    """The BGA summary service and every released table, grouped by the stage's groups (the
    entries' groups as the stage drew them) and then by round."""
    summary = await bga_svc.summary(session, page.event.id)
    plan: list[tuple[Stage, list[PlanGroup]]] = []
    for stage in page.stages:
        details = details_of(stage)
        groups: dict[str | None, dict[int, list[Table]]] = {}
        for rnd, tables in page.stage_rounds(stage):
            for tb in tables:
                group = details.group_of(tb.seats[0]["entry_id"]) if tb.seats else None
                groups.setdefault(group, {}).setdefault(rnd.round.number, []).append(tb)
        if groups:
            ordered = sorted(groups.items(), key=lambda kv: kv[0] or "")
            plan.append((stage, [PlanGroup(g, sorted(r.items())) for g, r in ordered]))
    settings = page.event.settings or {}
    deadlines = {k: shown_time(settings[k]) for k in ("join_deadline", "final_deadline") if settings.get(k)}
    return BgaPage(summary, plan, deadlines)


async def entries_of(session: AsyncSession, event_id: str, principal: Principal | None) -> list[EntryView]:
    return await event_svc.list_entries(session, event_id, principal)


def playing(page: EventPage) -> dict[str, Table]:
    """Who is seated at a table of the current tables still being played, and at which."""
    return {s["entry_id"]: t for t in page.current if t.open for s in t.seats}


def seated(page: EventPage, entry_id: str) -> tuple[list[Table], list[Table]]:
    """An entry's open tables and its played ones (newest first)."""
    mine = [
        t
        for _, tables in [(r, tables_of(r)) for r in reversed(page.rounds)]
        for t in tables
        if any(s["entry_id"] == entry_id for s in t.seats)
    ]
    return [t for t in mine if t.open], [t for t in mine if not t.open]


@dataclass
class PlayerFormats:
    """What a player's own page adds where the event's format lets the player act
    (docs/web.md "The player's page"): a Board Game Arena event's summary (their tables' BGA tables
    to record, the final to register for or withdraw from: ``GET /v1/events/{id}/bga``), and a Rite
    of Command player's deals (their open duels', for ``deck_size`` cards a player)."""

    entry_id: str
    bga: dict[str, Any] | None = None
    deals: dict[str, MatchDeal] = field(default_factory=dict)
    deck_size: int = roc_svc.DEFAULT_DECK

    @property
    def table_settings(self) -> dict[str, Any] | None:
        """A 3-player BGA event's table settings: its tables are recorded by their players too."""
        return (self.bga or {}).get("table_settings")

    @property
    def final(self) -> dict[str, Any] | None:
        """A 2-player BGA event's final, as the summary gives it, with what this player may do."""
        fin = (self.bga or {}).get("final")
        stages = (self.bga or {}).get("stages") or []
        if self.bga is None or self.bga.get("preset") != bga_svc.TWO_P or self.bga["status"] != "running":
            return None
        me, rr = self.entry_id, stages[0] if stages else None
        if fin is None or rr is None:
            return None
        finalist = me in (fin.get("finalists") or [])
        final_open = len(stages) > 1 and stages[1]["status"] == "active" and not fin["deadline_closed"]
        return {
            **fin,
            "finalist": finalist and len(stages) > 1 and stages[1]["status"] == "active",
            "registered_me": me in fin["registered"],
            "forfeited_me": me in fin["forfeits"],
            "withdrawn_me": me in fin["withdrawn"],
            "can_register": final_open and finalist and me not in fin["registered"],
            "can_withdraw": final_open and finalist,
            "can_withdraw_ahead": rr["status"] == "active" and me not in fin["withdrawn"],
        }


async def player_formats(
    session: AsyncSession, page: EventPage, entry_id: str, open_tables: list[Table], deck_size: int
) -> PlayerFormats:
    """The reads behind a player's format actions: the BGA summary, their open duels' deals."""
    out = PlayerFormats(entry_id, deck_size=deck_size)
    if page.event.preset in (bga_svc.TWO_P, bga_svc.THREE_P) and page.stages:
        out.bga = await bga_svc.summary(session, page.event.id)
    if (await game_of(session, page.event)).adjudicator == roc_svc.ADJUDICATOR:
        for tb in open_tables:
            if len(tb.seats) == 2:
                out.deals[tb.match.id] = await roc_svc.match_deal(session, tb.match.id, deck_size)
    return out
