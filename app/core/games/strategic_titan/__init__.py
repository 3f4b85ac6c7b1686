"""Strategic Titan: the game record keeper (spec: strategic-titan.md; seed 002, sections 4-9).

A game is an append-only list of events. ``replay`` applies them one by one, keeps every
player's state (movement numbers, Towers visited, legion markers, legions on the board,
mulligans, points, Titans) and a per-player ledger naming the rule behind each change, and
stops at the first event that breaks a rule, reporting ``{index, rule, message}`` with the state
as it was before that event. A malformed event (unknown type, missing field, wrong value) is an
``InvalidInput`` with ``loc = ("events", index, field)``.

Rules applied: 4.1-4.8 (movement numbers, "pass", the centre), 5.1-5.3 (teleport, Warlocks,
Towers), 6.1-6.8 (legion markers and the 12 cap), 7.1-7.9 (every mulligan gain, loss and spend,
the temporary Titan mulligan), 8.1-8.6 (resurrection), 9.1-9.5 (starting options).

Rulings (the spec's, and ours where it is silent):
- The record opens with a ``start`` event naming each player's starting Tower (distinct, one of
  100-600) — the first Tower visit (5.3); its ``options`` merge with the replay's options (a key
  given twice with different values is malformed). Options: ``start`` standard | warlock (9.1) |
  variety (9.2); ``titans`` single | double | triple (9.3; double and triple give two Titans);
  ``legion_markers`` 1-12 (default 5; fewer is 9.4, more is 9.5); ``order`` of turns (default:
  the players' order). 9.11 (Warlocks only when recycled) is not checked: the record does not
  follow creature deaths.
- Turns follow ``order`` among players still in the game (OT, rule "3.2"); an attack, teleport,
  Tower stop or retraction belongs to the player whose turn it is, after their number is recorded.
- 4.2: the last two *turns* count, a "pass" being a turn (after 3, 4, pass: a 3 is legal, a 4 is
  not); a retracted number (7.2) no longer counts; a corrected one (7.21) is replaced.
- 4.7: "pass" is allowed only while the player has exactly one legion on the board (it holds the
  Titan, or the player would be out). A pass turn may not stop in a Tower or teleport.
- 4.8: "the first turn" is the player's own first turn; the movement event says how many of the
  player's legions are in the centre (``centre``, kept until restated) and ``centre_blocked``.
- 5.1: a teleport needs the turn's number to be 6 and a destination that is a Tower; it is also a
  Tower stop for 5.3. 5.2: a teleport is the Titan legion's first move if ``first_move`` says so,
  by default when it happens on the player's first turn; a Warlock recruited in that turn (in that
  Tower, when the recruit names one) is rejected.
- 5.3: the visits are per player; a resurrection's placement (8.2) is a visit but is not limited.
- Splits (OT) are free in the player's own turn before the number is announced; after it, only as
  a forgotten split (7.24, one mulligan). ``recombine`` (4.5) takes a legion off the board.
- 6.2: legions on the board never exceed the markers held, and markers never exceed 12; an
  acquisition at 12 gives nothing and so costs no mulligan (7.4).
- 6.3/6.6: outcome ``destroyed`` = the defending legion died in combat and the attacker survived;
  ``mutual`` = both died (no marker for anyone); ``defended`` and ``time-out`` = the attacking legion
  is gone, the defender gains a marker; ``surrendered`` = the defender fled or conceded (6.4, one
  marker per two); ``forfeited`` = the attacker did not enter the battleland (6.7, one per two).
  The loser's legion leaves the board (6.5); an encounter's ``legions`` map, when given, states the
  listed players' legions on the board after the battle and is taken as the truth.
- 7.3/7.4/7.41 compare only players still in the game; "tied for last" in 7.4 means tied for the
  fewest legions on the board and holding no more total markers than any other player; counts are
  taken after the battle (and after the acquisition); a loss with no mulligan left loses nothing.
- 7.2: N stacks retracted cost N mulligans, only in the player's turn and before any attack of
  that turn; the number is withdrawn (re-announced next) and the turn's Tower stops are undone.
  7.21 (with ``number``: the corrected number, checked like any other), 7.23 and 7.24 cost exactly one.
- 7.41: ⌊new/100⌋ − ⌊old/100⌋ losses (no more than held) in one ledger entry, unless the player
  then has the fewest points (ties too).
- 7.7: a re-roll only inside a combat, by the attacker or the defender; 7.8: the battleland's re-roll
  is the defender's, in a combat. 7.9: a recruit paid with mulligans is in the player's own turn.
- 8.1: a ``titan_killed`` follows the encounter it died in (or another titan_killed of it), for a
  player who fought there. A player left with no legion on the board is out (OT, "3.2") from the
  next event that is not such a titan_killed; if one player is left, an ``end`` is accepted.
- Types are strict and every number is bounded (vocabulary ``BOUNDS``, ``MAX_EVENTS``): a malformed
  or out-of-bounds value is an ``InvalidInput`` naming it.
- 7.6: an ``attack`` (or ``encounter``) with ``titan: true`` gives the defender one temporary
  mulligan; a ``reroll`` with ``titan: true`` uses it first; it is lost when the encounter closes.
- 7.9: the recruit must be a non-basic creature and costs exactly the table's price; "all" means
  every mulligan held, at least 7. Spending more than one holds is rejected under the spend's rule.
- 8.1: resurrection when the player's last Titan dies holding 10 or more mulligans (counting the
  7.3 gain of that battle); the player keeps the mulligans held and gains 6 (8.2), keeps markers
  and points (8.5, 8.6), and has one legion, in the Tower named by ``tower`` (required then).
  With Double/Triple Titan a player is out only when the last Titan dies.
- The game is finished when at most one player remains, or at an ``end`` event (the game called).
  Places: players still in, by points (ties share); then the eliminated, latest first; players
  whose Titans die in the same encounter share a place. Everyone sharing first is a draw.
- Not checked, because the record does not hold piece movement: which legions must move (4.3-4.6),
  7.22, 7.23's "no legal moves" proviso and 8.3's free fill-ins.
- Record-keeping mistakes that no section names (an attack left open, an event after the end, an
  eliminated player acting) are reported with rule "record".

The package, by concern (every module names the rules it applies):
- ``vocabulary``: the rules' tables and ``SCHEMA``, every event type with its fields; parsing.
- ``state``: the per-player and game state, and the ledger of every change (``to_dict``).
- ``keeper``: the state being replayed with the checks every handler shares and the mulligan
  ledger's spend, loss and 7.41 scoring; ``Broken``, raised by a handler when a rule is broken.
- one module of handlers per rules section: ``movement`` (4), ``towers`` (5), ``legions`` (6),
  ``mulligans`` (7), ``resurrection`` (8), ``opening`` (9).
- ``replay``: ``HANDLERS``, the table of event type -> handler; ``replay`` and ``adjudicate_match``.
"""

from __future__ import annotations

from app.core.games.strategic_titan.replay import (
    HANDLERS,
    ReplayResult,
    Violation,
    adjudicate_match,
    replay,
)
from app.core.games.strategic_titan.state import (
    Combat,
    GameState,
    LedgerEntry,
    Movement,
    PlayerState,
)
from app.core.games.strategic_titan.vocabulary import (
    BASIC,
    CREATURES,
    EVENT_TYPES,
    MAX_COUNT,
    MAX_EVENTS,
    MAX_HEX,
    MAX_MARKERS,
    MAX_POINTS,
    OPTION_VALUES,
    OUTCOMES,
    RECRUIT_COST,
    SCHEMA,
    SPEND_RULES,
    START_MULLIGANS,
    TOWERS,
    Event,
    parse_events,
    parse_players,
    record_shape,
)

__all__ = [
    "BASIC",
    "CREATURES",
    "EVENT_TYPES",
    "HANDLERS",
    "MAX_COUNT",
    "MAX_EVENTS",
    "MAX_HEX",
    "MAX_MARKERS",
    "MAX_POINTS",
    "OPTION_VALUES",
    "OUTCOMES",
    "RECRUIT_COST",
    "SCHEMA",
    "SPEND_RULES",
    "START_MULLIGANS",
    "TOWERS",
    "Combat",
    "Event",
    "GameState",
    "LedgerEntry",
    "Movement",
    "PlayerState",
    "ReplayResult",
    "Violation",
    "adjudicate_match",
    "parse_events",
    "parse_players",
    "record_shape",
    "replay",
]
