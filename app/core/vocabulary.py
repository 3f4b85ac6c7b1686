"""The words of the product as types (formats.md "Words"; api.md "Resources").

Every status, outcome and format a client sees or the engine stores is one member of an enum here.
They are ``StrEnum``s: a member *is* its string, so it is stored, compared and serialized as the
value the HTTP contract names (``MatchStatus.CONFIRMED == "confirmed"``), and a typo is a name error
instead of a silent mismatch.
"""

from __future__ import annotations

from enum import StrEnum


class EventStatus(StrEnum):
    REGISTRATION = "registration"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class StageStatus(StrEnum):
    PENDING = "pending"
    ACTIVE = "active"
    CLOSED = "closed"


class EntryStatus(StrEnum):
    ACTIVE = "active"
    DROPPED = "dropped"
    WITHDRAWN = "withdrawn"


class MatchStatus(StrEnum):
    PENDING = "pending"
    REPORTED = "reported"  # some seats have claimed a result, all agreeing so far
    DISPUTED = "disputed"  # claims differ: the organizer rules
    CONFIRMED = "confirmed"
    BYE = "bye"
    VOID = "void"


# A match that still waits for its result: a round with one of these is not over.
OPEN_MATCH = frozenset({MatchStatus.PENDING, MatchStatus.REPORTED, MatchStatus.DISPUTED})


class Outcome(StrEnum):
    PLAYED = "played"
    DRAW = "draw"
    TIMEOUT = "timeout"
    FORFEIT = "forfeit"
    BYE = "bye"
    VOID = "void"


class StageFormatName(StrEnum):
    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"
    SINGLE_ELIMINATION = "single_elimination"
    DOUBLE_ELIMINATION = "double_elimination"
    HEATS = "heats"
    FREE_FOR_ALL = "free_for_all"
    SERIES = "series"
    PLAYOFF = "playoff"


class JobStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class JobKindName(StrEnum):
    """Every kind of background job; each has one entry in the job-kind registry."""

    INTEGRITY_CHECK = "integrity_check"
    RATINGS_UPDATE = "ratings_update"
    RATINGS_RECOMPUTE = "ratings_recompute"
    ROUND_ROBIN_SCHEDULE = "round_robin_schedule"
    STAGE_SCHEDULE = "stage_schedule"
    WEBHOOK_DELIVERY = "webhook_delivery"


class LiveEventType(StrEnum):
    """What an event's live stream and its webhooks announce (api.md "Live updates"): one row of the
    outbox each, written in the transaction of the change it announces. A season's stream and a
    rating pool's have their own (``SEASON_TYPES``, ``POOL_TYPES``)."""

    EVENT_UPDATED = "event.updated"  # renamed, or its settings replaced
    EVENT_STARTED = "event.started"
    EVENT_CANCELLED = "event.cancelled"
    EVENT_DELETED = "event.deleted"
    EVENT_FINISHED = "event.finished"
    ENTRY_REGISTERED = "entry.registered"
    ENTRY_DROPPED = "entry.dropped"
    ENTRY_CHECKED_IN = "entry.checked_in"
    ROUND_PAIRED = "round.paired"
    ROUND_UNDONE = "round.undone"
    ROUND_SWAPPED = "round.swapped"
    MATCH_REPORTED = "match.reported"  # a player's claim filed; the match waits for the others
    MATCH_DISPUTED = "match.disputed"
    MATCH_CONFIRMED = "match.confirmed"
    HERO_DECLARED = "match.hero_declared"  # a BATTLEBOOKS seat's hero declared before the game
    RESULT_CORRECTED = "result.corrected"
    STANDINGS_CHANGED = "standings.changed"
    STAGE_ADVANCED = "stage.advanced"
    FINAL_RULES_CHOSEN = "final_rules.chosen"  # a WBC finalist's Colossal Arena answer
    CLOCK_STARTED = "clock.started"
    CLOCK_PAUSED = "clock.paused"
    CLOCK_RESUMED = "clock.resumed"
    CLOCK_EXTENDED = "clock.extended"
    CLOCK_STOPPED = "clock.stopped"  # the organizer ended the round
    CLOCK_ENDED = "clock.ended"  # time is up
    ANNOUNCEMENT_POSTED = "announcement.posted"
    SEASON_UPDATED = "season.updated"  # a season's events or table changed (its rows keyed by the season)
    RATINGS_UPDATED = "ratings.updated"  # a rating pool's ratings changed (its rows keyed by the pool)


# The types of a season's stream: their outbox rows are keyed by the season, and their envelope names
# ``season_id`` where an event's names ``event_id``.
SEASON_TYPES = frozenset({LiveEventType.SEASON_UPDATED})
# The types of a rating pool's stream: their outbox rows are keyed by the pool (``outbox.pool_key``),
# and their envelope names ``pool`` where an event's names ``event_id``.
POOL_TYPES = frozenset({LiveEventType.RATINGS_UPDATED})
# The types of no event's stream: only the webhooks of every event receive them.
LEAGUE_TYPES = SEASON_TYPES | POOL_TYPES


class SeasonChange(StrEnum):
    """Why a ``season.updated`` was sent (api.md "Live updates"): an event attached or detached, an
    attached event finished, the final standings of an attached finished event changed (a
    correction), or an attached event deleted."""

    ATTACHED = "attached"
    DETACHED = "detached"
    EVENT_FINISHED = "event_finished"
    STANDINGS_CHANGED = "standings_changed"
    DELETED = "deleted"


class RatingChange(StrEnum):
    """Why a ``ratings.updated`` was sent (api.md "Live updates"): new games rated after the pool's
    last (the incremental update), the whole pool rated again (a recompute: a correction, new
    settings, a starting rating, an import), or a player's starting rating taken at once (a player
    without games)."""

    RATED = "rated"
    RECOMPUTED = "recomputed"
    START_RATING = "start_rating"


class WebhookStatus(StrEnum):
    ACTIVE = "active"
    DISABLED = "disabled"  # it failed for a day; it says why


class DeliveryStatus(StrEnum):
    PENDING = "pending"  # not delivered yet: its next attempt is due at next_attempt_at
    DELIVERED = "delivered"
    FAILED = "failed"  # given up: a day of failures, or its endpoint was disabled


class Role(StrEnum):
    """Who a bearer token speaks for (api.md "Authentication and tokens")."""

    ADMIN = "admin"
    ORGANIZER = "organizer"
    STAFF = "staff"  # a named scorekeeper or judge of one event (``StaffRole``)
    SEASON = "season"  # the organizer of one league season (api.md "Seasons")
    ENTRY = "entry"
    MONITOR = "monitor"  # the metrics token: reads GET /metrics and nothing else


class StaffRole(StrEnum):
    """What an event's staff token may do besides reading (api.md "Staff"): a scorekeeper enters,
    confirms and corrects results and rules on disputes; a judge also drops entries and swaps seats.
    Neither changes settings, pairs, undoes or advances."""

    SCOREKEEPER = "scorekeeper"
    JUDGE = "judge"
