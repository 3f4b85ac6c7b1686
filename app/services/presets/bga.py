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

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Conflict, Forbidden, InvalidInput, NotFound, Problem, RuleViolation
from app.core.games import bga as core
from app.core.results import Report
from app.core.standings import StandingRow
from app.db.base import utcnow
from app.db.models import Entry, Event, Match, Stage
from app.services import lifecycle
from app.services.rules import RULES, EventRules

TWO_P = "bga-round-robin"
THREE_P = "bga-round-robin-3p"


# --------------------------------------------------------------------------- 2 players
async def _decision(session: AsyncSession, event: Event, rr: Stage) -> core.FinalDecision:
    entries = await lifecycle.entries_by_id(session, event.id)
    withdrawn = list(rr.details.get("final_withdrawals", []))
    groups = rr.details.get("groups") or {}
    ranked: list[core.Ranked] = []
    names = sorted(set(groups.values())) if groups else [None]
    for g in names:
        for r in await lifecycle.stage_standings(session, event, rr, g):
            if entries[r.entry_id].status == "active":
                ranked.append(core.Ranked(r.entry_id, r.rank, entries[r.entry_id].tiebreak_value, g))
    return core.final_decision(ranked, withdrawn, grouped=bool(groups))


class TwoPlayer(EventRules):
    async def before_start(self, session: AsyncSession, event: Event, entries: list[Entry]) -> None:
        if len(entries) <= core.CANCEL_AT:
            event.status = "cancelled"
            return
        event.settings = {
            **event.settings,
            "stages": core.plan_stages(len(entries), event.settings["stages"]),
        }

    async def advancing(
        self, session: AsyncSession, event: Event, closed: Stage, rows: list[StandingRow], nxt: Stage
    ) -> list[str] | None:
        if closed.index != 0:
            return None
        decision = await _decision(session, event, closed)
        closed.details = {
            **closed.details,
            "final": {"finalists": decision.finalists, "winner": decision.winner, "reason": decision.reason},
        }
        if nxt.format == "series" and len(decision.finalists) != 2:
            raise Conflict(f"the final needs two finalists; {decision.reason}")
        return decision.finalists


def _require(event: Event, preset: str) -> None:
    if event.preset != preset:
        raise Conflict(f"this action belongs to the {preset!r} preset; event {event.id} is {event.preset!r}")


async def _final_stages(session: AsyncSession, event: Event) -> tuple[Stage, Stage]:
    _require(event, TWO_P)
    stages = await lifecycle.stages_of(session, event.id)
    if len(stages) < 2:
        raise Conflict("the event has not started: there is no final yet")
    return stages[0], stages[1]


async def _final_matches(session: AsyncSession, final: Stage) -> list[Match]:
    return [m for _, m in await lifecycle.stage_matches(session, final)]


async def _entry(session: AsyncSession, event: Event, entry_id: str) -> Entry:
    entry = await session.get(Entry, entry_id)
    if entry is None or entry.event_id != event.id:
        raise InvalidInput(
            f"entry {entry_id} is not in this event", [Problem(("entry_id",), "not an entry of this event")]
        )
    return entry


async def withdraw_finalist(session: AsyncSession, event: Event, entry_id: str) -> dict[str, Any]:
    """Record that an entry will not play the final; during the final's registration the next in
    line takes its seat."""
    rr, final = await _final_stages(session, event)
    await _entry(session, event, entry_id)
    if event.status != "running":
        raise Conflict(f"the event is {event.status}")
    withdrawn = sorted(set(rr.details.get("final_withdrawals", [])) | {entry_id})
    if rr.status == "active":
        rr.details = {**rr.details, "final_withdrawals": withdrawn}
        return {"withdrawn": withdrawn, "finalists": None}
    if final.status != "active":
        raise Conflict("the final is over")
    if entry_id not in final.details.get("entries", []):
        raise Conflict(f"entry {entry_id} is not a finalist")
    matches = await _final_matches(session, final)
    if any(m.status != "pending" for m in matches):
        raise Conflict("a game of the final has a result: a finalist who stops playing forfeits")
    rr.details = {**rr.details, "final_withdrawals": withdrawn}
    decision = await _decision(session, event, rr)
    if len(decision.finalists) != 2:
        raise Conflict(f"no one is left to take the withdrawn finalist's place ({decision.reason})")
    staying = [e for e in final.details["entries"] if e != entry_id]
    replacement = next(e for e in decision.finalists if e not in staying)
    final.details = {
        **final.details,
        "entries": [replacement if e == entry_id else e for e in final.details["entries"]],
        "registered": [e for e in final.details.get("registered", []) if e != entry_id],
    }
    rr.details = {
        **rr.details,
        "final": {**rr.details.get("final", {}), "finalists": final.details["entries"]},
    }
    for m in matches:
        for seat in m.seats:
            if seat.entry_id == entry_id:
                seat.entry_id = replacement
    await session.flush()
    return {"withdrawn": withdrawn, "finalists": final.details["entries"], "replacement": replacement}


async def _active_final(session: AsyncSession, event: Event) -> Stage:
    _, final = await _final_stages(session, event)
    if final.status != "active":
        raise Conflict("the final is not being played: no final registration is open")
    if final.details.get("deadline_closed"):
        raise Conflict("the final's registration deadline has passed")
    return final


async def register_finalist(session: AsyncSession, event: Event, entry_id: str) -> dict[str, Any]:
    final = await _active_final(session, event)
    await _entry(session, event, entry_id)
    if entry_id not in final.details.get("entries", []):
        raise Conflict(f"entry {entry_id} is not a finalist")
    registered = sorted(set(final.details.get("registered", [])) | {entry_id})
    final.details = {**final.details, "registered": registered}
    return {"registered": registered}


def _deadline(event: Event, key: str, now: datetime) -> None:
    raw = event.settings.get(key)
    if raw and now < datetime.fromisoformat(raw):
        raise Conflict(f"the {key.replace('_', ' ')} is {raw}; it has not passed yet")


async def close_final_registration(session: AsyncSession, event: Event) -> dict[str, Any]:
    """The deadline has passed: every finalist not registered forfeits the final."""
    final = await _active_final(session, event)
    _deadline(event, "final_deadline", utcnow())
    if any(m.status != "pending" for m in await _final_matches(session, final)):
        raise Conflict("a game of the final already has a result; the registration deadline cannot close now")
    finalists = list(final.details.get("entries", []))
    registered = list(final.details.get("registered", []))
    places = core.deadline_places(finalists, registered)
    forfeits = [f for f in finalists if f not in registered]
    final.details = {**final.details, "deadline_closed": True, "forfeits": forfeits}
    if places is None:
        return {"forfeits": []}
    place_of = dict(zip(finalists, places, strict=True))
    from app.services import results

    for _ in range(10):  # a best-of-N final never needs more than N games
        pending = [m for m in await _final_matches(session, final) if m.status == "pending"]
        if not pending:
            if await lifecycle.stage_complete(session, event, final) is None:
                break
            await lifecycle.pair_next_round(session, event)
            continue
        m = pending[0]
        seats = [
            {"entry_id": s.entry_id, "place": place_of[s.entry_id]}
            for s in sorted(m.seats, key=lambda s: s.seat)
        ]
        await results.report(
            session, m.id, "organizer", None, event.id, {"outcome": "forfeit", "seats": seats}
        )
    return {"forfeits": forfeits}


# --------------------------------------------------------------------------- 3 players
def _groups_of(details: dict[str, Any]) -> dict[str, list[str]]:
    assigned = details.get("groups") or {}
    out: dict[str, list[str]] = {}
    for e in details.get("entries", []):
        out.setdefault(assigned.get(e, "A"), []).append(e)
    return out


class ThreePlayer(EventRules):
    async def check_report(
        self, session: AsyncSession, event: Event, stage: Stage, match: Match, report: Report
    ) -> Report:
        recorded = (match.details or {}).get("bga_tables") or []
        if not recorded or report.outcome == "void" or any(s.violation for s in report.seats):
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
    session: AsyncSession, match_id: str, body: dict[str, Any], organizer: bool, entry_id: str | None
) -> dict[str, Any]:
    """Record a BGA table created for a scheduled match and judge every table recorded for it."""
    from app.services.results import load_match

    match = await load_match(session, match_id)
    event = await lifecycle.lock_event(session, match.event_id)
    _require(event, THREE_P)
    match = await load_match(session, match_id)
    seated = [s.entry_id for s in sorted(match.seats, key=lambda s: s.seat)]
    if not organizer and entry_id not in seated:
        raise Forbidden("only the organizer or a player of this match may record its table")
    if body.get("allowed") and not organizer:
        raise Forbidden("only the organizer may allow a table that breaks the table rules")
    if match.status == "bye":
        raise Conflict("a bye has no table")
    if event.status != "running":
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
    stages = await lifecycle.stages_of(session, event.id)
    started = stages[0].created_at if stages else None
    required = event.settings.get("table_settings") or {}
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
    session: AsyncSession, event: Event, absent: dict[str, list[str]]
) -> dict[str, Any]:
    """The join deadline has passed: absent players and tables never created are violations."""
    _require(event, THREE_P)
    stage = await lifecycle.active_stage(session, event.id)
    if event.status != "running" or stage is None or stage.format != "round_robin":
        raise Conflict("the join deadline closes while the round robin runs")
    if stage.details.get("join_deadline_closed"):
        raise Conflict("the join deadline has already been closed")
    if stage.details.get("schedule") is None:
        raise Conflict("the schedule is still being searched; see its job")
    _deadline(event, "join_deadline", utcnow())
    pending = [
        core.PendingMatch(
            m.id,
            tuple(s.entry_id for s in sorted(m.seats, key=lambda s: s.seat)),
            any(t.get("counted") for t in (m.details or {}).get("bga_tables") or []),
        )
        for _, m in await lifecycle.stage_matches(session, stage)
        if m.status == "pending"
    ]
    rulings = core.join_deadline_rulings(pending, absent)
    stage.details = {
        **stage.details,
        "join_deadline_closed": True,
        "join_rulings": [
            {"match_id": r.match_id, "violators": list(r.violators), "reason": r.reason} for r in rulings
        ],
    }
    from app.services import results

    for r in rulings:
        m = next(p for p in pending if p.match_id == r.match_id)
        seats = [
            {"entry_id": e, "place": p, "violation": e in r.violators}
            for e, p in zip(m.entries, r.places, strict=True)
        ]
        await results.report(
            session, r.match_id, "organizer", None, event.id, {"outcome": "forfeit", "seats": seats}
        )
    return {"rulings": stage.details["join_rulings"]}


# --------------------------------------------------------------------------- both
async def summary(session: AsyncSession, event: Event) -> dict[str, Any]:
    """Where a BGA event stands: its plan, schedule warnings, the final and the winner(s)."""
    if event.preset not in (TWO_P, THREE_P):
        raise NotFound(f"event {event.id} is not a Board Game Arena round robin")
    stages = await lifecycle.stages_of(session, event.id)
    out: dict[str, Any] = {"event_id": event.id, "preset": event.preset, "status": event.status}
    if not stages:
        return {**out, "stages": [], "warnings": [], "final": None, "winners": []}
    rr = stages[0]
    report = rr.details.get("report") or {}
    out["stages"] = [
        {
            "index": s.index,
            "format": s.format,
            "status": s.status,
            "groups": len(_groups_of(s.details)) or None,
        }
        for s in stages
    ]
    out["warnings"] = list(report.get("warnings", []))
    out["schedule_report"] = report or None
    out["final"] = None
    winners: list[str] = []
    if event.preset == TWO_P and len(stages) > 1:
        final = stages[1]
        decided = rr.details.get("final") or {}
        out["final"] = {
            "format": final.format,
            "best_of": int(final.settings.get("best_of", 1)),
            "rated": final.settings.get("rated", True) is not False,
            "finalists": final.details.get("entries") or decided.get("finalists"),
            "registered": final.details.get("registered", []),
            "withdrawn": rr.details.get("final_withdrawals", []),
            "deadline_closed": bool(final.details.get("deadline_closed")),
            "forfeits": final.details.get("forfeits", []),
        }
        if final.status == "closed":
            if len(final.details.get("entries", [])) > 1:
                rows = await lifecycle.stage_standings(session, event, final)
                winners = [rows[0].entry_id] if rows else []
            elif decided.get("winner"):
                winners = [decided["winner"]]
    elif event.preset == THREE_P and rr.status == "closed":
        winners = [r.entry_id for r in await lifecycle.stage_standings(session, event, rr) if r.rank == 1]
    out["winners"] = winners
    return out


RULES[TWO_P] = TwoPlayer()
RULES[THREE_P] = ThreePlayer()
