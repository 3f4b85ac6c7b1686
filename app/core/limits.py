"""The bounds of what a client may write (api.md "Limits"): one home for the request schemas of the
API (app/api/schemas) and for the rows of an imported event file (app/services/transfer_rows.py),
so a value the API refuses is refused from a file too.

A bound is a number here; each side states it in its own words (a pydantic ``Field`` for the API).
"""

from __future__ import annotations

import unicodedata

ID_LENGTH = 64  # an id of a request (an entry's, a match's ...)
NAME_LENGTH = 200  # a name or a label: an event's, a player's, an entry's, a game's
KEY_LENGTH = 64  # a game's key, a preset's name, an adjudicator's
GAME_KEY_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
CLUB_LENGTH = 100
CHARACTER_LENGTH = 100  # a character (a hero, a faction) an entry plays
CHARACTERS = 16  # characters one entry brings
EXTERNAL_ID_LENGTH = 200
GROUP_LENGTH = 32
SEED_LENGTH = (8, 128)  # an event's seed: the randomness of its draws
SEED_NUMBER = 100_000  # an entry's seed number, 1 the top
ENTRY_RATING = 10_000  # an entry's rating at registration, either side of 0
START_RATING = (0, 100_000)  # a pool's starting rating of a player
SCORE = 1e12  # a number of a score, either side of 0
SEATS = 64  # seats of one table
FORBIDDEN_PAIRS = 10_000  # pairs of entries never paired together
FORBIDDEN_GROUP = 64  # entries in one forbidden group

# characters that show nothing: controls, format characters (zero-width space, joiners, marks of
# direction), separators, combining marks with no base, lone surrogates, and the blank fillers some
# scripts have (a private-use or not yet assigned character may show in some font: it counts)
_INVISIBLE_CATEGORIES = {"Cc", "Cf", "Zs", "Zl", "Zp", "Mn", "Me", "Cs"}
_BLANK = set("\u115f\u1160\u3164\uffa0\u2800")


def invisible(text: str) -> bool:
    """True when no character of ``text`` shows anything (it reads as empty)."""
    return all(c in _BLANK or unicodedata.category(c) in _INVISIBLE_CATEGORIES for c in text)
