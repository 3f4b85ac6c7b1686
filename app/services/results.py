"""Results from many clients (api.md ``POST /v1/matches/{id}/result``; formats.md "Result").

- The organizer's report is final: the match is confirmed at once (a ruling when it was disputed).
- A seat's entry token files that entry's claim. When every seat has claimed the same result the
  match is confirmed — or, where the preset says the organizer confirms (``organizer_confirms``:
  the BATTLEBOOKS Swiss presets), it stays ``reported`` until the organizer confirms the agreed
  claims (``confirm``); as soon as two claims differ it is ``disputed`` until the organizer rules.
- A confirmed result changes only by the organizer's correction (``PUT`` with ``If-Match``), which
  may also record violations after the fact; every report, claim, confirmation, ruling and
  correction is kept in the match's audit history.
- A report or a confirmation holds its event (nothing of its structure changes meanwhile) and locks
  its match, so a result posted twice at once is stored once, while results of other matches of
  the event are written beside it; corrections and a preset's actions on a match lock the event.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import CursorResult, Integer, String, bindparam, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import contains_eager, defer
from sqlalchemy.orm.attributes import flag_modified, instance_state, set_committed_value
from sqlalchemy.orm.exc import StaleDataError

from app.core.access import Access, Principal, authorize
from app.core.concurrency import check_if_match
from app.core.errors import Conflict, InvalidInput, NotFound, Problem
from app.core.games.adjudication import SeatOutcome
from app.core.games.adjudication import match_seed as seed_of_match
from app.core.games.registry import adjudicator_name, get_adjudicator, in_seat_order
from app.core.results import Report, ReportedSeat, normalize
from app.core.vocabulary import OPEN_MATCH, EntryStatus, EventStatus, MatchStatus, Outcome, Role, StageStatus
from app.db.base import new_id, utcnow
from app.db.models import Entry, Event, Match, ResultHistory, ResultReport, Round, Seat, Stage
from app.services import downstream, outbox, ratings, summary
from app.services.reads import (
    entries_by_id,
    game_of,
    holding_match,
    load_match,
    lock_event,
    mark_changed,
    names_of,
    settings_of,
    stage_settings,
)
from app.services.registry import registry_of


async def _context(
    session: AsyncSession, match_id: str, principal: Principal | None, access: Access
) -> tuple[Event, Stage, Round, Match, Principal]:
    """Authorize the caller on the match, lock the match's event (serializing this change with every
    other change of the event, results included), then load the match as it stands under the lock."""
    peek = (
        await session.execute(
            select(Match.event_id, Seat.entry_id)
            .outerjoin(Seat, Seat.match_id == Match.id)
            .where(Match.id == match_id)
        )
    ).all()
    if not peek:
        raise NotFound(f"match {match_id} not found")
    seated = {row.entry_id for row in peek if row.entry_id is not None}
    who = authorize(principal, access, event_id=peek[0].event_id, seated=seated)
    event = await lock_event(session, peek[0].event_id)
    # removed (its round undone) while this waited for the lock: not found
    locked = await _locked_match(session, match_id, stage_details=True)
    return event, locked.stage, locked.round, locked.match, who


def _count(model: type[ResultReport] | type[ResultHistory]) -> Any:
    return (
        select(func.count())
        .select_from(model)
        .where(model.match_id == Match.id)
        .correlate(Match)
        .scalar_subquery()
    )


@dataclass(frozen=True)
class _Locked:
    """A match as it stands under its row lock, with its event (held), round, stage, the seats'
    names, the claims filed and the length of its history."""

    event: Event
    match: Match
    round: Round
    stage: Stage
    names: dict[str, str]
    claims: int
    history_before: int


@dataclass
class _Held:
    """A report's or a confirmation's context: the caller, the match as locked (with its event,
    held), and the history rows this change writes."""

    principal: Principal
    locked: _Locked
    written: list[ResultHistory] = field(default_factory=list)


async def _locked_match(session: AsyncSession, match_id: str, *, stage_details: bool) -> _Locked:
    """The match locked and its event held (``reads.holding_match``), with its seats, their names,
    its round (its stored details unloaded), its stage (with its details only when
    ``stage_details``: a Swiss stage's lists its entries), the claims filed, the length of its
    history and whether a webhook may want the event's changes (app/services/outbox.py): one
    statement. Not found: a 404."""
    await session.flush()  # the re-read below must not overwrite what the caller changed
    rows = (
        (await session.execute(_LOCKED_MATCH[stage_details], {"match_id": match_id})).unique().all()
    )  # a row per seat: each row differs by its entry's id and name
    if not rows:
        raise NotFound(f"match {match_id} not found")
    event, match, rnd, stage, filed, kept, hooked = rows[0][:7]
    names = {r[7]: r[8] for r in rows if r[7] is not None}
    if not hooked:
        outbox.no_hooks(session, event.id)
    return _Locked(event, match, rnd, stage, names, int(filed or 0), int(kept or 0))


def _locked_match_statement(stage_details: bool) -> Any:
    unloaded = [defer(Round.details)] + ([] if stage_details else [defer(Stage.details)])
    return holding_match(
        select(
            Event,
            Match,
            Round,
            Stage,
            _count(ResultReport),
            _count(ResultHistory),
            outbox.hooks_wanted(Match.event_id),
            Entry.id,
            Entry.name,
        )
        .join(Event, Event.id == Match.event_id)
        .join(Round, Round.id == Match.round_id)
        .join(Stage, Stage.id == Round.stage_id)
        .outerjoin(Seat, Seat.match_id == Match.id)
        .outerjoin(Entry, Entry.id == Seat.entry_id)
        .where(Match.id == bindparam("match_id", type_=String))
        .options(contains_eager(Match.seats), *unloaded)
        .execution_options(populate_existing=True)
    )


_LOCKED_MATCH = {details: _locked_match_statement(details) for details in (False, True)}  # built once


async def _held(session: AsyncSession, match_id: str, principal: Principal | None, access: Access) -> _Held:
    """A result's context: the match's event held (app/services/reads.py: changes of the event's
    structure wait, other results go on) and the match locked, in one statement (``_locked_match``;
    the stage's stored details loaded after it only when the preset reads them); the caller
    authorized on it. A preset whose checks of a report read other matches (``parallel_results``
    false) has the event to itself from there on."""
    locked = await _locked_match(session, match_id, stage_details=False)
    event = locked.event
    rules = registry_of(session).rules_for(event)
    if rules.report_reads_stage_details:
        await session.refresh(locked.stage, ["details"])
    who = authorize(principal, access, event_id=event.id, seated=set(locked.names))
    if not rules.parallel_results:
        await mark_changed(session, event.id)
    return _Held(who, locked)


async def _kept(session: AsyncSession, held: _Held, action: str, actor: str, payload: dict[str, Any]) -> None:
    held.written.append(await _history(session, held.locked.match, action, actor, payload))


async def _answer(session: AsyncSession, held: _Held, claims: int) -> MatchView:
    """The match as its answer shows it, read before the change is published (the event's row is
    locked for update only for the statements that publish it): its history is read back unless
    the rows this change wrote are all of it."""
    locked = held.locked
    if locked.history_before:
        kept = await history(session, locked.match.id)
    else:
        kept = sorted(held.written, key=lambda h: (h.created_at, h.match_version))
    return MatchView(locked.match, locked.round, locked.stage, locked.names, claims, kept)


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


@dataclass(frozen=True)
class _Judged:
    """A report checked against its table; with a game log, the log in seat order and its verdict."""

    report: Report
    game_log: dict[str, Any] | None = None
    verdict: dict[str, Any] | None = None
    adjudicator: str | None = None

    def payload(self, posted: bool) -> dict[str, Any]:
        """What the history and a claim keep: the normalized result, and the log when one was posted."""
        log = {"game_log": self.game_log} if posted and self.game_log is not None else {}
        return {**self.report.as_dict(), **log}


async def _normalized(
    session: AsyncSession, event: Event, stage: Stage, match: Match, body: dict[str, Any]
) -> _Judged:
    seats = sorted(match.seats, key=lambda s: s.seat)
    entry_ids = [s.entry_id for s in seats]
    reported = _seats_in(body)
    game_log = body.get("game_log")
    if game_log is None and not reported and match.game_log:
        game_log = match.game_log  # a record kept on the match (POST /v1/matches/{id}/log) decides it
    verdict: dict[str, Any] | None = None
    name: str | None = None
    outcome = body.get("outcome")
    if game_log is not None:
        game = await game_of(session, event)
        # a preset may judge its own records
        adjudicate = registry_of(session).rules_for(event).adjudicator(event, stage, match)
        if adjudicate is None:
            if not game.adjudicator:
                raise InvalidInput(
                    "this game has no adjudicator; report places instead of a game log",
                    [Problem(("game_log",), f"game {event.game_key!r} is not adjudicated by Arbiter")],
                )
            adjudicate = get_adjudicator(game.adjudicator)
        names = await names_of(session, entry_ids)
        game_log = in_seat_order(game.adjudicator, game_log, [(e, names.get(e, "")) for e in entry_ids])
        adjudication = adjudicate(game_log, len(entry_ids), match_seed(event, match))
        verdict = adjudication.details
        name = adjudicator_name(adjudicate)
        given = {s.entry_id: s for s in reported}
        _contradictions(entry_ids, adjudication.seats, reported)
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
    return _Judged(normalize(entry_ids, outcome, reported), game_log, verdict, name)


def _contradictions(
    entry_ids: list[str], judged: Sequence[SeatOutcome], reported: list[ReportedSeat]
) -> None:
    """Places or scores sent beside a game log must be the log's: a contradiction is a 422 naming
    the seat (as sent), never replaced silently."""
    by_entry = {entry_ids[o.seat]: o for o in judged}
    problems: list[Problem] = []
    for i, seat in enumerate(reported):
        o = by_entry.get(seat.entry_id)
        if o is None:
            continue  # not at this table: normalize names it
        if seat.place is not None and seat.place != o.place:
            problems.append(
                Problem(("seats", i, "place"), f"place {seat.place} contradicts the game log: {o.place}")
            )
        if seat.score is not None and o.score is not None and float(seat.score) != float(o.score):
            problems.append(
                Problem(("seats", i, "score"), f"score {seat.score:g} contradicts the game log: {o.score:g}")
            )
    if problems:
        raise InvalidInput(problems[0].msg, problems)


def _apply(
    match: Match,
    report: Report,
    game_log: dict[str, Any] | None,
    verdict: dict[str, Any] | None,
    adjudicator: str | None = None,
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
    match.status = MatchStatus.CONFIRMED
    # Seats may be all that changed: counting revisions on the match row makes every change of
    # the result bump the match's version (its ETag).
    match.details = {**(match.details or {}), "revision": int((match.details or {}).get("revision", 0)) + 1}
    if match.reported_at is None:
        match.reported_at = utcnow()  # the game's place in the recorded order; corrections keep it
    if game_log is not None:
        match.game_log = game_log
    if verdict is not None:
        match.details = {**(match.details or {}), "adjudication": verdict, "adjudicator": adjudicator}


# What a result writes, as statements built once per shape (the columns changed) and bound with
# their values: the ORM's unit of work costs more CPU than the three statements it would send.
_UPDATES: dict[tuple[type[Any], frozenset[str]], Any] = {}
_HISTORY_INSERT = insert(cast(Any, ResultHistory.__table__))  # the table's: no ORM bulk insert


def seats_moved(match: Match) -> None:
    """A seat of ``match`` changed hands outside a result (a swap, a replacement): its row is
    written too at the next flush, so its version moves, as a result's does — a client holding the
    match's ETag sees that it changed, and a reader comparing versions (``reads.final_versions``)
    reads it again."""
    flag_modified(match, "details")


def _update_of(model: type[Match] | type[Seat], columns: frozenset[str]) -> Any:
    statement = _UPDATES.get((model, columns))
    if statement is None:
        table: Any = model.__table__
        where = table.c.id == bindparam("row_id", type_=String)
        if model is Match:  # the match's version: a change made meanwhile (never, under its lock) fails
            where = where & (table.c.version == bindparam("row_version", type_=Integer))
        statement = _UPDATES[(model, columns)] = update(table).where(where)
    return statement


def _changed(row: Match | Seat) -> dict[str, Any]:
    """The columns of ``row`` changed since it was loaded or last written, with their values."""
    columns = type(row).__table__.c
    return {key: getattr(row, key) for key in instance_state(row).committed_state if key in columns}


async def _write_match(session: AsyncSession, match: Match) -> None:
    """The match's and its seats' changes written by ``_update_of``'s statements (a changed match
    bumps its version, as the ORM's version counter does), then marked as written."""
    match_changes = _changed(match)
    seat_changes = [(seat, _changed(seat)) for seat in match.seats]
    seat_changes = [(seat, changes) for seat, changes in seat_changes if changes]
    if not match_changes and not seat_changes:
        return
    # seats may be all that changed: a change of the result always bumps the match's version
    match_changes["version"] = match.version + 1
    done = await session.execute(
        _update_of(Match, frozenset(match_changes)),
        {**match_changes, "row_id": match.id, "row_version": match.version},
    )
    if cast(CursorResult[Any], done).rowcount != 1:
        raise StaleDataError(f"match {match.id} was changed meanwhile")
    by_shape: dict[frozenset[str], list[dict[str, Any]]] = {}
    for seat, changes in seat_changes:
        by_shape.setdefault(frozenset(changes), []).append({**changes, "row_id": seat.id})
    for columns, rows in by_shape.items():
        await session.execute(_update_of(Seat, columns), rows)
    identity_map = session.sync_session.identity_map
    for row, changes in [*seat_changes, (match, match_changes)]:
        for key, value in changes.items():
            set_committed_value(row, key, value)
        state = instance_state(row)
        if not state.committed_state:  # nothing left for the commit's flush to look at
            state._commit_all(state.dict, identity_map)


async def _history(
    session: AsyncSession, match: Match, action: str, actor: str, payload: dict[str, Any]
) -> ResultHistory:
    """The match's changes written, then its history row (the answer's copy of it not tracked)."""
    await _write_match(session, match)
    row = ResultHistory(
        id=new_id(),
        match_id=match.id,
        match_version=match.version,
        action=action,
        actor=actor,
        payload=payload,
        created_at=utcnow(),
    )
    await session.execute(
        _HISTORY_INSERT,
        {
            "id": row.id,
            "match_id": row.match_id,
            "match_version": row.match_version,
            "action": action,
            "actor": actor,
            "payload": payload,
            "created_at": row.created_at,
        },
    )
    return row


async def _after_confirm(
    session: AsyncSession, event: Event, stage: Stage, match: Match, correction: bool
) -> None:
    """The preset's hook; then ratings follow confirmed results of rated events (incremental; a
    correction recomputes)."""
    await registry_of(session).rules_for(event).after_confirm(session, event, stage, match)
    await outbox.result_confirmed(session, event, stage, match, correction=correction)
    if not settings_of(event).rated:
        return
    if correction:
        await ratings.enqueue_recompute(session, await ratings.match_pools(session, match.id))
    else:
        await ratings.enqueue_rating_update(session, match.id)


def match_seed(event: Event, match: Match) -> str:
    """The seed an adjudicator draws a match's game from (a Rite of Command deal)."""
    return seed_of_match(event.seed, match.id)


async def report(
    session: AsyncSession, match_id: str, principal: Principal | None, body: dict[str, Any]
) -> MatchView:
    """A result from the organizer or its staff (final) or from a seated entry (a claim); the match
    as answered."""
    held = await _held(session, match_id, principal, Access.ORGANIZER_OR_SEATED)
    event, stage, match, principal = held.locked.event, held.locked.stage, held.locked.match, held.principal
    seated = {s.entry_id for s in match.seats}
    organizer = principal.keeps_results(event.id)
    if event.status != EventStatus.RUNNING or stage.status != StageStatus.ACTIVE:
        raise Conflict("this match's stage is closed: results can no longer be reported")
    if match.status == MatchStatus.BYE:
        raise Conflict("a bye has no result to report")
    if match.status == MatchStatus.CONFIRMED:
        raise Conflict("the result is already confirmed; the organizer corrects it with PUT and If-Match")
    judged = await _normalized(session, event, stage, match, body)
    normalized = (
        await registry_of(session).rules_for(event).check_report(session, event, stage, match, judged.report)
    )
    posted = body.get("game_log") is not None
    payload = {**judged.payload(posted), **normalized.as_dict()}
    verdict, adjudicator = judged.verdict, judged.adjudicator

    if organizer:
        action = "ruling" if match.status == MatchStatus.DISPUTED else "report"
        _apply(match, normalized, judged.game_log if posted else None, verdict, adjudicator)
        await _kept(session, held, action, principal.actor, payload)
        view = await _answer(session, held, held.locked.claims)
        await _after_confirm(session, event, stage, match, correction=False)
        return view

    actor_entry = principal.entry_id
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
    await _kept(session, held, "claim", principal.actor, payload)
    results = [Report.from_dict(c.payload).as_dict() for c in claims.values()]
    agree = all(r == results[0] for r in results)
    if not agree:
        match.status = MatchStatus.DISPUTED
    elif set(claims) >= seated and not registry_of(session).rules_for(event).organizer_confirms(event):
        first = claims[actor_entry].payload
        _apply(match, Report.from_dict(first), first.get("game_log"), verdict, adjudicator)
        await _kept(session, held, "confirm", "players", payload)
        view = await _answer(session, held, len(claims))
        await _after_confirm(session, event, stage, match, correction=False)
        return view
    else:
        match.status = MatchStatus.REPORTED
    await session.flush()
    view = await _answer(session, held, len(claims))
    await outbox.claim_filed(session, event, stage, match)
    return view


@dataclass(frozen=True)
class Preview:
    """What a result would record, not recorded: the report as ``report`` would normalize and
    check it, and a game log's verdict with the adjudicator that gave it."""

    report: Report
    verdict: dict[str, Any] | None
    adjudicator: str | None


async def preview(
    session: AsyncSession, match_id: str, principal: Principal | None, body: dict[str, Any]
) -> Preview:
    """The adjudicator's verdict (and every check ``report`` makes of the body) before a result is
    committed; nothing is written (the caller rolls its transaction back)."""
    event, stage, _, match, _who = await _context(session, match_id, principal, Access.ORGANIZER_OR_SEATED)
    if match.status in (MatchStatus.BYE, MatchStatus.CONFIRMED):
        raise Conflict(f"this match is {match.status}: there is no result to report")
    judged = await _normalized(session, event, stage, match, body)
    normalized = (
        await registry_of(session).rules_for(event).check_report(session, event, stage, match, judged.report)
    )
    return Preview(normalized, judged.verdict, judged.adjudicator)


async def confirm(session: AsyncSession, match_id: str, principal: Principal | None) -> MatchView:
    """The organizer confirms the players' claims, which must agree (at least one filed)."""
    held = await _held(session, match_id, principal, Access.RESULTS)
    event, stage, match, organizer = held.locked.event, held.locked.stage, held.locked.match, held.principal
    if event.status != EventStatus.RUNNING or stage.status != StageStatus.ACTIVE:
        raise Conflict("this match's stage is closed: results can no longer be confirmed")
    if match.status == MatchStatus.CONFIRMED:
        raise Conflict("the result is already confirmed; the organizer corrects it with PUT and If-Match")
    if match.status == MatchStatus.DISPUTED:
        raise Conflict("the players' claims differ: rule on the dispute with PUT /v1/matches/{id}/result")
    claims = list(
        (await session.execute(select(ResultReport).where(ResultReport.match_id == match.id))).scalars()
    )
    if match.status == MatchStatus.BYE or not claims:
        raise Conflict("nothing to confirm: no player has reported this match")
    agreed = claims[0].payload
    verdict = adjudicator = None
    if agreed.get("game_log") is not None:  # the adjudicator's verdict, kept with the match
        judged = await _normalized(session, event, stage, match, {"game_log": agreed["game_log"]})
        verdict, adjudicator = judged.verdict, judged.adjudicator
    _apply(match, Report.from_dict(agreed), agreed.get("game_log"), verdict, adjudicator)
    await _kept(session, held, "confirm", organizer.actor, agreed)
    view = await _answer(session, held, len(claims))
    await _after_confirm(session, event, stage, match, correction=False)
    return view


@dataclass(frozen=True)
class Corrected:
    """A corrected match, and what the correction made stale downstream (its stage was closed)."""

    match: Match
    warnings: list[str]


async def correct(
    session: AsyncSession,
    match_id: str,
    principal: Principal | None,
    if_match: str | None,
    body: dict[str, Any],
) -> Corrected:
    """The organizer's correction of a result, or ruling on a dispute (``If-Match``: the match's
    version). A correction after the match's stage has closed changes no later stage; its warnings
    say what those stages built on that is now stale (kept in the history with the correction)."""
    event, stage, _, match, organizer = await _context(session, match_id, principal, Access.RESULTS)
    check_if_match(if_match, match.version)
    if match.status == MatchStatus.BYE:
        raise Conflict("a bye has no result to correct")
    if event.status == EventStatus.CANCELLED:
        raise Conflict("the event is cancelled")
    before = await downstream.built_on(session, event, stage)
    judged = await _normalized(session, event, stage, match, body)
    normalized = (
        await registry_of(session).rules_for(event).check_report(session, event, stage, match, judged.report)
    )
    was_confirmed = match.status == MatchStatus.CONFIRMED
    posted = body.get("game_log") is not None
    _apply(match, normalized, judged.game_log if posted else None, judged.verdict, judged.adjudicator)
    payload = {**judged.payload(posted), **normalized.as_dict()}
    await session.flush()
    warnings = await downstream.stale_warnings(session, event, stage, before)
    if warnings:
        payload["warnings"] = warnings
    await _history(session, match, "correction" if was_confirmed else "ruling", organizer.actor, payload)
    await _after_confirm(session, event, stage, match, correction=was_confirmed)
    await summary.corrected(session, event)
    return Corrected(match, warnings)


async def match_for_change(
    session: AsyncSession, match_id: str, principal: Principal | None, access: Access
) -> tuple[Event, Stage, Round, Match, Principal]:
    """A preset's action on a match: the caller authorized on it, its event locked, the match as it
    stands under the lock."""
    return await _context(session, match_id, principal, access)


async def record(
    session: AsyncSession, match: Match, action: str, actor: str, payload: dict[str, Any]
) -> None:
    """Keep a preset's action on a match (a hero declared, say) in the match's audit history."""
    await _history(session, match, action, actor, payload)


def organizer_of(event: Event) -> Principal:
    """The principal a preset's organizer action reports results as (e.g. forfeits at a deadline)."""
    return Principal(Role.ORGANIZER, event_id=event.id)


async def rule(
    session: AsyncSession,
    event: Event,
    stage: Stage,
    match: Match,
    body: dict[str, Any],
    action: str,
    actor: str,
) -> None:
    """A result the service records by a rule of the stage — a dropped entry's resigned game, a game
    a decided series no longer needs: checked like a report, confirmed at once, kept in the history
    under ``action`` (with the event already locked by the caller)."""
    judged = await _normalized(session, event, stage, match, body)
    normalized = (
        await registry_of(session).rules_for(event).check_report(session, event, stage, match, judged.report)
    )
    _apply(match, normalized, None, None)
    await _history(session, match, action, actor, normalized.as_dict())
    await _after_confirm(session, event, stage, match, correction=False)


async def resign_games(
    session: AsyncSession, event: Event, stage: Stage, matches: list[Match], actor: str
) -> None:
    """The open games of ``matches`` that seat a dropped entry, lost by it as the stage's ``on_drop``
    says: ``resign`` — a forfeit won by everyone else at the table; ``violation`` — the same, scored
    as the dropper's violation (formats.md "Late entries and drops"). ``bye`` leaves them be."""
    on_drop = stage_settings(stage).on_drop
    if on_drop == "bye":
        return
    entries = await entries_by_id(session, event.id)
    for match in matches:
        seats = sorted(match.seats, key=lambda s: s.seat)
        dropped = {s.entry_id for s in seats if entries[s.entry_id].status != EntryStatus.ACTIVE}
        if match.status not in OPEN_MATCH or not dropped:
            continue
        body = {
            "outcome": Outcome.FORFEIT,
            "seats": [
                {
                    "entry_id": s.entry_id,
                    "place": len(seats) if s.entry_id in dropped else 1,
                    "violation": on_drop == "violation" and s.entry_id in dropped,
                }
                for s in seats
            ],
        }
        await rule(session, event, stage, match, body, "drop", actor)


async def history(session: AsyncSession, match_id: str) -> list[ResultHistory]:
    rows = await session.execute(
        select(ResultHistory)
        .where(ResultHistory.match_id == match_id)
        .order_by(ResultHistory.created_at, ResultHistory.match_version)
    )
    return list(rows.scalars())


# --------------------------------------------------------------------------- reads
@dataclass(frozen=True)
class MatchView:
    """A match as clients read it: its round and stage, the entries' names, the players' claims
    filed so far and the audit history."""

    match: Match
    round: Round
    stage: Stage
    names: dict[str, str]
    claims: int
    history: list[ResultHistory]


async def match_view(session: AsyncSession, match: Match) -> MatchView:
    """The match with what its answer names: its round and stage (read once: from the session when
    the change loaded them), the names of its seats only, its claims and history."""
    rnd = await session.get(Round, match.round_id, options=[defer(Round.details)])
    assert rnd is not None
    stage = await session.get(Stage, rnd.stage_id)
    assert stage is not None
    claims = (
        await session.execute(
            select(func.count()).select_from(ResultReport).where(ResultReport.match_id == match.id)
        )
    ).scalar_one()
    return MatchView(
        match,
        rnd,
        stage,
        await names_of(session, [s.entry_id for s in match.seats]),
        int(claims),
        await history(session, match.id),
    )


async def get_match(session: AsyncSession, match_id: str) -> MatchView:
    return await match_view(session, await load_match(session, match_id))
