"""Results from many clients (api.md ``POST /v1/matches/{id}/result``; formats.md "Result").

- The organizer's report is final: the match is confirmed at once (a ruling when it was disputed).
- A seat's entry token files that entry's claim. When every seat has claimed the same result the
  match is confirmed; as soon as two claims differ it is ``disputed`` until the organizer rules.
- A confirmed result changes only by the organizer's correction (``PUT`` with ``If-Match``), which
  may also record violations after the fact; every report, claim, confirmation, ruling and
  correction is kept in the match's audit history.
- All of it happens with the event row locked, so a result posted twice at once is stored once.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from app.core.errors import Conflict, Forbidden, InvalidInput, NotFound, Problem
from app.core.games.registry import get_adjudicator
from app.core.results import Report, ReportedSeat, normalize
from app.db.base import utcnow
from app.db.models import Event, Game, Match, ResultHistory, ResultReport, Round, Stage
from app.services.lifecycle import lock_event
from app.services.rules import rules_for

REPORTABLE = ("pending", "reported", "disputed")


async def load_match(session: AsyncSession, match_id: str) -> Match:
    row = await session.execute(select(Match).where(Match.id == match_id).options(selectinload(Match.seats)))
    match = row.scalar_one_or_none()
    if match is None:
        raise NotFound(f"match {match_id} not found")
    return match


async def _context(session: AsyncSession, match_id: str) -> tuple[Event, Stage, Round, Match]:
    """Lock the match's event (serializing every result of the event), then load the match."""
    peek = await session.execute(select(Match.event_id).where(Match.id == match_id))
    event_id = peek.scalar_one_or_none()
    if event_id is None:
        raise NotFound(f"match {match_id} not found")
    event = await lock_event(session, event_id)
    match = await load_match(session, match_id)
    rnd = await session.get(Round, match.round_id)
    assert rnd is not None
    stage = await session.get(Stage, rnd.stage_id)
    assert stage is not None
    return event, stage, rnd, match


def _seats_in(body: dict[str, Any]) -> list[ReportedSeat]:
    return [
        ReportedSeat(
            entry_id=s["entry_id"],
            place=s.get("place"),
            score=s.get("score"),
            body_points=s.get("body_points"),
            differential=s.get("differential"),
            character=s.get("character"),
            violation=bool(s.get("violation", False)),
        )
        for s in body.get("seats", [])
    ]


async def _normalized(
    session: AsyncSession, event: Event, match: Match, body: dict[str, Any]
) -> tuple[Report, dict[str, Any] | None]:
    seats = sorted(match.seats, key=lambda s: s.seat)
    entry_ids = [s.entry_id for s in seats]
    reported = _seats_in(body)
    game_log = body.get("game_log")
    if game_log is None and not reported and match.game_log:
        game_log = match.game_log  # a record kept on the match (POST /v1/matches/{id}/log) decides it
    verdict: dict[str, Any] | None = None
    outcome = body.get("outcome")
    if game_log is not None:
        adjudicate = rules_for(event).adjudicator(event, match)  # a preset may judge its own records
        if adjudicate is None:
            game = await session.get(Game, event.game_key)
            if game is None or not game.adjudicator:
                raise InvalidInput(
                    "this game has no adjudicator; report places instead of a game log",
                    [Problem(("game_log",), f"game {event.game_key!r} is not adjudicated by Arbiter")],
                )
            adjudicate = get_adjudicator(game.adjudicator)
        adjudication = adjudicate(game_log, len(entry_ids), f"{event.seed}:{match.id}")
        verdict = adjudication.details
        given = {s.entry_id: s for s in reported}
        reported = []
        for o in adjudication.seats:
            entry_id = entry_ids[o.seat]
            extra = given.get(entry_id)
            reported.append(
                ReportedSeat(
                    entry_id=entry_id,
                    place=o.place,
                    score=o.score,
                    character=extra.character if extra else None,
                    violation=extra.violation if extra else False,
                )
            )
        outcome = outcome or adjudication.outcome
    return normalize(entry_ids, outcome, reported), verdict


def _apply(
    match: Match, report: Report, game_log: dict[str, Any] | None, verdict: dict[str, Any] | None
) -> None:
    by_entry = {s.entry_id: s for s in report.seats}
    for seat in match.seats:
        r = by_entry[seat.entry_id]
        seat.place = r.place
        seat.score = r.score
        seat.body_points = r.body_points
        seat.differential = r.differential
        seat.violation = r.violation
        if r.character is not None:
            seat.character = r.character
    match.outcome = report.outcome
    match.status = "confirmed"
    # Seats may be all that changed: counting revisions on the match row makes every change of
    # the result bump the match's version (its ETag).
    match.details = {**(match.details or {}), "revision": int((match.details or {}).get("revision", 0)) + 1}
    if match.reported_at is None:
        match.reported_at = utcnow()  # the game's place in the recorded order; corrections keep it
    if game_log is not None:
        match.game_log = game_log
    if verdict is not None:
        match.details = {**(match.details or {}), "adjudication": verdict}


async def _history(
    session: AsyncSession, match: Match, action: str, actor: str, payload: dict[str, Any]
) -> None:
    await session.flush()  # bumps match.version when the match changed
    session.add(
        ResultHistory(
            match_id=match.id, match_version=match.version, action=action, actor=actor, payload=payload
        )
    )
    await session.flush()


async def _after_confirm(
    session: AsyncSession, event: Event, stage: Stage, match: Match, correction: bool
) -> None:
    """The preset's hook; then ratings follow confirmed results of rated events (incremental; a
    correction recomputes)."""
    await rules_for(event).after_confirm(session, event, stage, match)
    if not event.settings.get("rated"):
        return
    from app.services import ratings

    if correction:
        await ratings.enqueue_recompute(session, await ratings.match_pools(session, match.id))
    else:
        await ratings.enqueue_rating_update(session, match.id)


async def report(
    session: AsyncSession,
    match_id: str,
    actor_kind: str,
    actor_entry: str | None,
    actor_event: str | None,
    body: dict[str, Any],
) -> Match:
    event, stage, _, match = await _context(session, match_id)
    organizer = actor_kind == "admin" or (actor_kind == "organizer" and actor_event == event.id)
    seated = {s.entry_id for s in match.seats}
    if not organizer and not (actor_kind == "entry" and actor_entry in seated):
        raise Forbidden("only the organizer or an entry seated at this match may report it")
    if event.status != "running" or stage.status != "active":
        raise Conflict("this match's stage is closed: results can no longer be reported")
    if match.status == "bye":
        raise Conflict("a bye has no result to report")
    if match.status == "confirmed":
        raise Conflict("the result is already confirmed; the organizer corrects it with PUT and If-Match")
    normalized, verdict = await _normalized(session, event, match, body)
    normalized = await rules_for(event).check_report(session, event, stage, match, normalized)
    payload = {
        **normalized.as_dict(),
        **({"game_log": body["game_log"]} if body.get("game_log") is not None else {}),
    }

    if organizer:
        action = "ruling" if match.status == "disputed" else "report"
        _apply(match, normalized, body.get("game_log"), verdict)
        await _history(session, match, action, "organizer" if actor_kind == "organizer" else "admin", payload)
        await _after_confirm(session, event, stage, match, correction=False)
        return match

    assert actor_entry is not None
    claims = {
        c.reporter: c
        for c in (
            await session.execute(select(ResultReport).where(ResultReport.match_id == match.id))
        ).scalars()
    }
    mine = claims.get(actor_entry)
    if mine is None:
        mine = ResultReport(match_id=match.id, reporter=actor_entry, payload=payload)
        session.add(mine)
        claims[actor_entry] = mine
    else:
        mine.payload = payload
    await _history(session, match, "claim", f"entry:{actor_entry}", payload)
    results = [Report.from_dict(c.payload).as_dict() for c in claims.values()]
    agree = all(r == results[0] for r in results)
    if not agree:
        match.status = "disputed"
    elif set(claims) >= seated:
        first = claims[actor_entry].payload
        _apply(match, Report.from_dict(first), first.get("game_log"), verdict)
        await _history(session, match, "confirm", "players", payload)
        await _after_confirm(session, event, stage, match, correction=False)
    else:
        match.status = "reported"
    await session.flush()
    return match


async def correct(
    session: AsyncSession, match_id: str, version: int, body: dict[str, Any], actor: str
) -> Match:
    from app.core.errors import PreconditionFailed

    event, stage, _, match = await _context(session, match_id)
    if match.version != version:
        raise PreconditionFailed(f"version {version} is stale; the current version is {match.version}")
    if match.status == "bye":
        raise Conflict("a bye has no result to correct")
    if event.status == "cancelled":
        raise Conflict("the event is cancelled")
    normalized, verdict = await _normalized(session, event, match, body)
    normalized = await rules_for(event).check_report(session, event, stage, match, normalized)
    was_confirmed = match.status == "confirmed"
    _apply(match, normalized, body.get("game_log"), verdict)
    payload = {
        **normalized.as_dict(),
        **({"game_log": body["game_log"]} if body.get("game_log") is not None else {}),
    }
    await _history(session, match, "correction" if was_confirmed else "ruling", actor, payload)
    await _after_confirm(session, event, stage, match, correction=was_confirmed)
    return match


async def history(session: AsyncSession, match_id: str) -> list[ResultHistory]:
    rows = await session.execute(
        select(ResultHistory)
        .where(ResultHistory.match_id == match_id)
        .order_by(ResultHistory.created_at, ResultHistory.match_version)
    )
    return list(rows.scalars())
