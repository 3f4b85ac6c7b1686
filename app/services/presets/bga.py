"""Rules and organizer actions of the Board Game Arena round robins (bga-round-robin.md); the rulings
are listed in ``app.core.games.bga``.

- ``bga-round-robin``: ``before_start`` cancels the event at 2 or fewer entries and otherwise picks
  the stages by entry count (one round robin and a one-game final up to 10; two groups and a
  best-of-3 unrated final from 11); ``advancing`` names the finalists (withdrawals replaced). Organizer
  actions: a finalist's withdrawal, final registration and closing its deadline (forfeits).
- ``bga-round-robin-3p``: the general schedule job designs each group of a split field (players
  numbered per group by the event seed); ``check_report`` refuses the result of a match whose
  recorded BGA tables all fail the table rules. Organizer actions: recording a match's BGA tables and
  closing the join deadline (violations).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.access import Access, Principal, authorize
from app.core.errors import Conflict, InvalidInput, NotFound, Problem, RuleConflict, RuleViolation
from app.core.games import bga as core
from app.core.results import Report
from app.core.stage_details import RoundRobinDetails
from app.core.standings import StandingRow
from app.core.vocabulary import EntryStatus, EventStatus, MatchStatus, Outcome, StageFormatName, StageStatus
from app.db.base import utcnow
from app.db.models import Entry, Event, Match, Stage
from app.services import lifecycle, results
from app.services.reads import (
    active_stage,
    details_of,
    entries_by_id,
    get_event,
    load_match,
    lock_event,
    set_details,
    settings_of,
    stage_matches,
    stage_settings,
    stage_standings,
    stages_of,
)
from app.services.registry import registry_of
from app.services.rules import EventRules

TWO_P = "bga-round-robin"
THREE_P = "bga-round-robin-3p"


# --------------------------------------------------------------------------- 2 players
async def _decision(session: AsyncSession, event: Event, rr: Stage) -> core.FinalDecision:
    entries = await entries_by_id(session, event.id)
    details = details_of(rr)
    withdrawn = list(details.extra.get("final_withdrawals", []))
    groups = details.groups
    ranked: list[core.Ranked] = []
    names = sorted(set(groups.values())) if groups else [None]
    for g in names:
        for r in await stage_standings(session, event, rr, g):
            if entries[r.entry_id].status == EntryStatus.ACTIVE:
                ranked.append(core.Ranked(r.entry_id, r.rank, entries[r.entry_id].tiebreak_value, g))
    return core.final_decision(ranked, withdrawn, grouped=bool(groups))


SERIES_DECIDED = "bga.series.decided"


class TwoPlayer(EventRules):
    # a final's game reads the series' other games (decided series): one result at a time
    parallel_results = False

    async def check_report(
        self, session: AsyncSession, event: Event, stage: Stage, match: Match, report: Report
    ) -> Report:
        """bga-round-robin.md, the ruling on a decided series: once a best-of final is decided, its
        remaining games are void; a result for one is refused (409 naming the rule), counting for
        nothing."""
        if stage.format != StageFormatName.SERIES or report.outcome == Outcome.VOID:
            return report
        others = [m for _, m in await stage_matches(session, stage) if m.id != match.id]
        best_of = stage_settings(stage).best_of
        winner = core.decided_series(
            [[s.entry_id for s in m.seats if s.place == 1] for m in others if _counts_in_series(m)], best_of
        )
        if winner is not None:
            raise RuleConflict(
                SERIES_DECIDED,
                f"the best-of-{best_of} final is decided ({winner} has won "
                f"{best_of // 2 + 1} games); its remaining games are void and no result counts",
            )
        return report

    async def before_start(self, session: AsyncSession, event: Event, entries: list[Entry]) -> None:
        if len(entries) <= core.CANCEL_AT:
            event.status = EventStatus.CANCELLED
            return
        event.settings = {
            **event.settings,
            "stages": core.plan_stages(len(entries), event.settings["stages"]),
        }

    async def advancing(
        self,
        session: AsyncSession,
        event: Event,
        closed: Stage,
        rows: list[StandingRow],
        nxt: Stage,
        *,
        record: bool = True,
    ) -> list[str] | None:
        if closed.index != 0:
            return None
        decision = await _decision(session, event, closed)
        if not record:
            return decision.finalists
        final = {"finalists": decision.finalists, "winner": decision.winner, "reason": decision.reason}
        set_details(closed, details_of(closed).with_extra(final=final))
        if nxt.format == StageFormatName.SERIES and len(decision.finalists) != 2:
            raise Conflict(f"the final needs two finalists; {decision.reason}")
        return decision.finalists


def _counts_in_series(m: Match) -> bool:
    return m.status == MatchStatus.CONFIRMED and m.outcome in (Outcome.PLAYED, Outcome.FORFEIT)


def _require(event: Event, preset: str) -> None:
    if event.preset != preset:
        raise Conflict(f"this action belongs to the {preset!r} preset; event {event.id} is {event.preset!r}")


async def _final_stages(session: AsyncSession, event: Event) -> tuple[Stage, Stage]:
    _require(event, TWO_P)
    stages = await stages_of(session, event.id)
    if len(stages) < 2:
        raise Conflict("the event has not started: there is no final yet")
    return stages[0], stages[1]


async def _final_matches(session: AsyncSession, final: Stage) -> list[Match]:
    return [m for _, m in await stage_matches(session, final)]


async def _entry(session: AsyncSession, event: Event, entry_id: str) -> Entry:
    entry = await session.get(Entry, entry_id)
    if entry is None or entry.event_id != event.id:
        raise InvalidInput(
            f"entry {entry_id} is not in this event", [Problem(("entry_id",), "not an entry of this event")]
        )
    return entry


async def withdraw_finalist(
    session: AsyncSession, event_id: str, principal: Principal | None, entry_id: str
) -> dict[str, Any]:
    """Record that an entry will not play the final (the organizer, or the entry itself); during the
    final's registration the next in line takes its seat."""
    authorize(principal, Access.ORGANIZER_OR_OWN_ENTRY, event_id=event_id, entry_id=entry_id)
    event = await lock_event(session, event_id)
    rr, final = await _final_stages(session, event)
    await _entry(session, event, entry_id)
    if event.status != EventStatus.RUNNING:
        raise Conflict(f"the event is {event.status}")
    rr_details = details_of(rr)
    withdrawn = sorted(set(rr_details.extra.get("final_withdrawals", [])) | {entry_id})
    if rr.status == StageStatus.ACTIVE:
        set_details(rr, rr_details.with_extra(final_withdrawals=withdrawn))
        return {"withdrawn": withdrawn, "finalists": None}
    if final.status != StageStatus.ACTIVE:
        raise Conflict("the final is over")
    final_details = details_of(final)
    if entry_id not in final_details.entries:
        raise Conflict(f"entry {entry_id} is not a finalist")
    matches = await _final_matches(session, final)
    if any(m.status != MatchStatus.PENDING for m in matches):
        raise Conflict("a game of the final has a result: a finalist who stops playing forfeits")
    rr_details = rr_details.with_extra(final_withdrawals=withdrawn)
    set_details(rr, rr_details)
    decision = await _decision(session, event, rr)
    if len(decision.finalists) != 2:
        raise Conflict(f"no one is left to take the withdrawn finalist's place ({decision.reason})")
    staying = [e for e in final_details.entries if e != entry_id]
    replacement = next(e for e in decision.finalists if e not in staying)
    finalists = [replacement if e == entry_id else e for e in final_details.entries]
    registered = [e for e in final_details.extra.get("registered", []) if e != entry_id]
    set_details(final, replace(final_details, entries=tuple(finalists)).with_extra(registered=registered))
    set_details(
        rr, rr_details.with_extra(final={**rr_details.extra.get("final", {}), "finalists": finalists})
    )
    for m in matches:
        for seat in m.seats:
            if seat.entry_id == entry_id:
                seat.entry_id = replacement
                results.seats_moved(m)
    await session.flush()
    return {"withdrawn": withdrawn, "finalists": finalists, "replacement": replacement}


async def _active_final(session: AsyncSession, event: Event) -> Stage:
    _, final = await _final_stages(session, event)
    if final.status != StageStatus.ACTIVE:
        raise Conflict("the final is not being played: no final registration is open")
    if details_of(final).extra.get("deadline_closed"):
        raise Conflict("the final's registration deadline has passed")
    return final


async def register_finalist(
    session: AsyncSession, event_id: str, principal: Principal | None, entry_id: str
) -> dict[str, Any]:
    """Register a finalist for the final (the organizer, or the finalist itself)."""
    authorize(principal, Access.ORGANIZER_OR_OWN_ENTRY, event_id=event_id, entry_id=entry_id)
    event = await lock_event(session, event_id)
    final = await _active_final(session, event)
    await _entry(session, event, entry_id)
    details = details_of(final)
    if entry_id not in details.entries:
        raise Conflict(f"entry {entry_id} is not a finalist")
    registered = sorted(set(details.extra.get("registered", [])) | {entry_id})
    set_details(final, details.with_extra(registered=registered))
    return {"registered": registered}


def _deadline(event: Event, key: str, when: datetime | None, now: datetime) -> None:
    if when is not None and now < when:
        raise Conflict(f"the {key.replace('_', ' ')} is {event.settings[key]}; it has not passed yet")


async def close_final_registration(session: AsyncSession, event_id: str) -> dict[str, Any]:
    """The deadline has passed: every finalist not registered forfeits the final."""
    event = await lock_event(session, event_id)
    final = await _active_final(session, event)
    _deadline(event, "final_deadline", settings_of(event).final_deadline, utcnow())
    if any(m.status != MatchStatus.PENDING for m in await _final_matches(session, final)):
        raise Conflict("a game of the final already has a result; the registration deadline cannot close now")
    details = details_of(final)
    finalists = list(details.entries)
    registered = list(details.extra.get("registered", []))
    places = core.deadline_places(finalists, registered)
    forfeits = [f for f in finalists if f not in registered]
    set_details(final, details.with_extra(deadline_closed=True, forfeits=forfeits))
    if places is None:
        return {"forfeits": []}
    place_of = dict(zip(finalists, places, strict=True))
    fmt = registry_of(session).format_of(final)
    for _ in range(10):  # a best-of-N final never needs more than N games
        if (
            await lifecycle.stage_complete(
                session, event, final, ignore=await fmt.moot(session, event, final)
            )
            is None
        ):
            break  # decided (games a decided series no longer needs are voided as it closes)
        pending = [m for m in await _final_matches(session, final) if m.status == MatchStatus.PENDING]
        if not pending:
            await lifecycle.pair_next_round(session, event)
            continue
        m = pending[0]
        seats = [
            {"entry_id": s.entry_id, "place": place_of[s.entry_id]}
            for s in sorted(m.seats, key=lambda s: s.seat)
        ]
        await results.report(
            session, m.id, results.organizer_of(event), {"outcome": Outcome.FORFEIT, "seats": seats}
        )
    return {"forfeits": forfeits}


# --------------------------------------------------------------------------- 3 players


class ThreePlayer(EventRules):
    async def check_report(
        self, session: AsyncSession, event: Event, stage: Stage, match: Match, report: Report
    ) -> Report:
        recorded = (match.details or {}).get("bga_tables") or []
        if not recorded or report.outcome == Outcome.VOID or any(s.violation for s in report.seats):
            return report
        if not any(t["counted"] for t in recorded):
            why = "; ".join(f"table {t['table']}: {', '.join(t['reasons'])}" for t in recorded)
            raise RuleViolation(
                "bga.table",
                f"no recorded table of this match counts, so its result is not counted ({why}); "
                "play the scheduled table with the event's settings, or rule the match void",
            )
        return report


async def record_table(
    session: AsyncSession, match_id: str, principal: Principal | None, body: dict[str, Any]
) -> dict[str, Any]:
    """Record a BGA table created for a scheduled match (the organizer, or a player of the match;
    ``allowed`` is the organizer's) and judge every table recorded for it."""
    match = await load_match(session, match_id)
    authorize(principal, Access.ORGANIZER_OR_EVENT_ENTRY, event_id=match.event_id)
    event = await lock_event(session, match.event_id)
    _require(event, THREE_P)
    match = await load_match(session, match_id, fresh=True)
    seated = [s.entry_id for s in sorted(match.seats, key=lambda s: s.seat)]
    authorize(principal, Access.ORGANIZER_OR_SEATED, event_id=event.id, seated=seated)
    if body.get("allowed"):
        authorize(principal, Access.ORGANIZER, event_id=event.id)
    if match.status == MatchStatus.BYE:
        raise Conflict("a bye has no table")
    if event.status != EventStatus.RUNNING:
        raise Conflict(f"the event is {event.status}")
    recorded = list((match.details or {}).get("bga_tables") or [])
    if any(t["table"] == body["table"] for t in recorded):
        raise Conflict(f"table {body['table']} is already recorded for this match")
    created = body["created_at"]
    recorded.append(
        {
            "table": body["table"],
            "created_at": created.isoformat(),
            "players": list(body["players"]),
            "settings": dict(body.get("settings") or {}),
            "allowed": bool(body.get("allowed", False)),
        }
    )
    stages = await stages_of(session, event.id)
    started = stages[0].created_at if stages else None
    required = dict(settings_of(event).table_settings)
    verdicts = core.judge_tables(
        seated,
        required,
        started,
        [
            core.BgaTable(
                t["table"],
                datetime.fromisoformat(t["created_at"]),
                tuple(t["players"]),
                t["settings"],
                t["allowed"],
            )
            for t in recorded
        ],
    )
    for t, v in zip(recorded, verdicts, strict=True):
        t["counted"] = v.counted
        t["reasons"] = list(v.reasons)
    match.details = {**(match.details or {}), "bga_tables": recorded}
    await session.flush()
    return {"match_id": match.id, "tables": recorded}


async def close_join_deadline(
    session: AsyncSession, event_id: str, absent: dict[str, list[str]]
) -> dict[str, Any]:
    """The join deadline has passed: absent players and tables never created are violations."""
    event = await lock_event(session, event_id)
    _require(event, THREE_P)
    stage = await active_stage(session, event.id)
    if event.status != EventStatus.RUNNING or stage is None or stage.format != StageFormatName.ROUND_ROBIN:
        raise Conflict("the join deadline closes while the round robin runs")
    details = details_of(stage)
    assert isinstance(details, RoundRobinDetails)
    if details.extra.get("join_deadline_closed"):
        raise Conflict("the join deadline has already been closed")
    if details.schedule is None:
        raise Conflict("the schedule is still being searched; see its job")
    _deadline(event, "join_deadline", settings_of(event).join_deadline, utcnow())
    pending = [
        core.PendingMatch(
            m.id,
            tuple(s.entry_id for s in sorted(m.seats, key=lambda s: s.seat)),
            any(t.get("counted") for t in (m.details or {}).get("bga_tables") or []),
        )
        for _, m in await stage_matches(session, stage)
        if m.status == MatchStatus.PENDING
    ]
    rulings = core.join_deadline_rulings(pending, absent)
    join_rulings = [
        {"match_id": r.match_id, "violators": list(r.violators), "reason": r.reason} for r in rulings
    ]
    set_details(stage, details.with_extra(join_deadline_closed=True, join_rulings=join_rulings))
    for r in rulings:
        m = next(p for p in pending if p.match_id == r.match_id)
        seats = [
            {"entry_id": e, "place": p, "violation": e in r.violators}
            for e, p in zip(m.entries, r.places, strict=True)
        ]
        await results.report(
            session, r.match_id, results.organizer_of(event), {"outcome": Outcome.FORFEIT, "seats": seats}
        )
    return {"rulings": join_rulings}


# --------------------------------------------------------------------------- both
async def summary(session: AsyncSession, event_id: str) -> dict[str, Any]:
    """Where a BGA event stands: its plan, schedule warnings, the final and the winner(s)."""
    event = await get_event(session, event_id)
    if event.preset not in (TWO_P, THREE_P):
        raise NotFound(f"event {event.id} is not a Board Game Arena round robin")
    stages = await stages_of(session, event.id)
    out: dict[str, Any] = {"event_id": event.id, "preset": event.preset, "status": event.status}
    if not stages:
        names = {e.id: e.name for e in (await entries_by_id(session, event.id)).values()}
        return {**out, "stages": [], "warnings": [], "final": None, "winners": [], "names": names}
    rr = stages[0]
    rr_details = details_of(rr)
    report = dict(getattr(rr_details, "report", None) or {})
    out["stages"] = [
        {
            "index": s.index,
            "format": s.format,
            "status": s.status,
            "groups": len(details_of(s).members_by_group()) or None,
        }
        for s in stages
    ]
    out["warnings"] = list(report.get("warnings", []))
    out["schedule_report"] = report or None
    out["final"] = None
    winners: list[str] = []
    if event.preset == TWO_P and len(stages) > 1:
        final = stages[1]
        final_details = details_of(final)
        final_settings = stage_settings(final)
        decided = rr_details.extra.get("final") or {}
        out["final"] = {
            "format": final.format,
            "best_of": final_settings.best_of,
            "rated": final_settings.rated,
            "finalists": list(final_details.entries) or decided.get("finalists"),
            "registered": final_details.extra.get("registered", []),
            "withdrawn": rr_details.extra.get("final_withdrawals", []),
            "deadline_closed": bool(final_details.extra.get("deadline_closed")),
            "forfeits": final_details.extra.get("forfeits", []),
        }
        if final.status == StageStatus.CLOSED:
            if len(final_details.entries) > 1:
                rows = await stage_standings(session, event, final)
                winners = [rows[0].entry_id] if rows else []
            elif decided.get("winner"):
                winners = [decided["winner"]]
    elif event.preset == THREE_P and rr.status == StageStatus.CLOSED:
        winners = [r.entry_id for r in await stage_standings(session, event, rr) if r.rank == 1]
    out["winners"] = winners
    if event.preset == THREE_P:
        out["table_settings"] = {
            k: v if isinstance(v, str) else list(v) for k, v in settings_of(event).table_settings.items()
        }
    out["names"] = {e.id: e.name for e in (await entries_by_id(session, event.id)).values()}
    return out


RULES: dict[str, EventRules] = {TWO_P: TwoPlayer(), THREE_P: ThreePlayer()}
