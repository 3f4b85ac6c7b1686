"""Round robin with N seats: combinatorial designs (formats.md "Round robin, N seats";
bga-round-robin.md "Schedule"; api.md "Stateless tools", ``POST /v1/schedules/round-robin``).

A schedule is a set of tables (blocks) of ``table_size`` seats, seats numbered from 0, optionally split
into rounds (everyone at most once a round). Exact designs are built by construction where one is known
(Steiner systems: round robin for pairs, Bose/Skolem triple systems, projective and affine geometries over
GF(q), a radical difference family for S(2,4,q), the Hermitian unital for 28 players in fours, a Kirkman
resolution for 15); everything else comes from a seeded greedy covering improved by simulated annealing.
Every construction is checked by :func:`check_design` before it is returned.

One module per part, each importing only modules listed before it: ``model`` (what a search returns),
``budget`` (the caller's time budget), ``checks`` (quality figures, bounds, ranking keys),
``constructions`` (exact designs), ``cyclic`` (stored resolvable coverings), ``validation`` (request limits), ``anneal`` (starting designs and
annealing over tables), ``rounds`` (colouring tables into rounds), ``resolvable`` (the round-structured
search), ``report`` (warnings) and ``search`` (:func:`search_design`). The package re-exports the public
names.

Rulings where the specs are silent:

- Every table has exactly ``table_size`` seats. Identical tables are not forbidden (they are needed when
  ``table_size == players`` or games_per_player is large); the pair-meeting objective keeps them rare.
- A design with every pair exactly once "exists" in the warnings' sense when the divisibility conditions
  (k−1 | N−1, k(k−1) | N(N−1)) hold, which is sufficient for k = 3 and 4 (Kirkman; Hanani).
- ``complete`` mode puts, in order: every pair meets at least once; as few tables as possible; games per
  player within one (equal when the table count allows it); pair meetings as even as possible
  (no pair three times where twice suffices). So equal games never cost an extra table; unequal games
  carry the seed's warning instead.
- ``games`` mode: every player plays exactly ``games_per_player`` games; pair meetings are kept within
  ``floor(λ)..ceil(λ)`` where λ = gpp·(k−1)/(N−1) is the average, as far as the search gets.
- ``exact`` is true when every player has the same number of games and every pair meets the same number of
  times, at least once (a 2-design; in ``complete`` mode this is "every pair exactly once", a Steiner system).
- ``games_per_player`` is an error in ``complete`` mode and required in ``games`` mode; ``players`` is at most
  ``MAX_PLAYERS`` and the design at most ``MAX_TABLES`` tables (resource limits, 422; in ``complete`` mode
  judged by the Schönheim bound).
- Known covering numbers (the yardstick for "as few tables as possible"): C(v,3,2) is the Schönheim bound
  for every v (Fort–Hedlund; the "+1 when v ≡ 5 mod 6" exception belongs to packings, not coverings —
  e.g. C(5,3,2) = 4 = L); C(v,4,2) per Mills (see :func:`known_covering_number`). When the search
  stops above the known number, or above Schönheim where nothing is known, the report says so.
- The only "impossible" check on ``games_per_player`` is divisibility (players·gpp by table_size); large
  values are possible with repeated meetings, so no upper bound beyond ``MAX_TABLES``.
- Rounds come after the design: a design is never made worse (more tables, uneven games, more uneven
  pair meetings) to save rounds. Rounds are a colouring of the tables (tables sharing a player conflict),
  then a search with the round structure built in, at the same table count, tries to reach the lower
  bound max(games per player, ceil(tables / floor(N/k))); it is kept only if the design is no worse.
  Constructions keep their own resolution (AG(n,q) parallel classes, Kirkman 15, the circle method for
  pairs). When the table size divides the players and no exact resolvable design is built, ``complete``
  mode with rounds takes the stored resolvable covering for that size (``cyclic``; every size up to 200
  in tables of 3 and 4), without a search; the rounds of any such schedule are at least
  :func:`fewest_rounds_bound`. In projective planes any two tables share a player, so they need one round per table.
- In ``games`` mode with rounds, a round-structured search runs first and is kept when its pair meetings
  are within one; otherwise the free search wins if its pair meetings are more even.
- When rounds are asked for, tables are listed round by round (round 0's tables first) and ``rounds``
  holds table indices.
- In ``games`` mode, when an exact design S(2,k,N) is known and games_per_player is a multiple of its
  (N−1)/(k−1) games, the design is repeated (every pair meets equally often, ``exact``).
- The time budget is the caller's ``should_stop`` callback (no clock reads here). Without one, the search
  runs a fixed effort and stops. When ``should_stop`` ends the search early, the best design found so far
  is returned with the warning "search stopped at its time budget; …". A design always exists: a greedy
  covering (complete) or a cyclic seat fill (games) is built before any improvement.
- The seed's warning (bga-round-robin.md, ranking by average points, tie-break A "among players who won
  every game, more games ranks higher"): whenever games per player differ, the report says that a player
  who wins all of their (fewer) games ranks below an undefeated player with more games. Two players can both
  win every game only if they never share a table (or, when they do, a third player's violation scores
  the shared table +1 for both); the warning says which case applies. When some pairs never meet and games
  are equal, two undefeated players can exist and share first place (tie-break B has no head-to-head game
  and scores both 0.5); the report says so too.
- Uneven pair meetings in ``complete`` mode (max − min ≥ 1) and a table count above the lower bound
  (known covering number, else Schönheim) are reported as warnings; in ``games`` mode a pair-meeting spread
  above one is reported.
- The histogram in ``as_dict()`` has string keys (JSON object keys), ascending, including 0 when a pair
  never meets.
- Randomness only from ``rng.stream(seed, "designs:…")``: the same inputs and seed give the same design
  (unless ``should_stop`` cuts the search at a different point).
"""

from __future__ import annotations

from app.core.pairing.designs.budget import ProgressFn, StopFn
from app.core.pairing.designs.checks import (
    check_design,
    check_rounds,
    fewest_rounds_bound,
    known_covering_number,
    schonheim_bound,
)
from app.core.pairing.designs.constructions import steiner_system
from app.core.pairing.designs.model import Design, DesignReport, GamesRange, PairMeetings
from app.core.pairing.designs.rounds import rounds_lower_bound
from app.core.pairing.designs.search import search_design
from app.core.pairing.designs.validation import MAX_PLAYERS, MAX_TABLES, MODES, validate_request

__all__ = [
    "MAX_PLAYERS",
    "MAX_TABLES",
    "MODES",
    "Design",
    "DesignReport",
    "GamesRange",
    "PairMeetings",
    "ProgressFn",
    "StopFn",
    "check_design",
    "check_rounds",
    "fewest_rounds_bound",
    "known_covering_number",
    "rounds_lower_bound",
    "schonheim_bound",
    "search_design",
    "steiner_system",
    "validate_request",
]
