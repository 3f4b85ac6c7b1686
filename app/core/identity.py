"""Who a registration is (docs/api.md "Identity"; battlebooks.md asks players to keep one name across
events so their ranking follows them).

Rule, in order: a ``player_id`` names the player; else an ``external_id`` (a federation or club
number) finds the player holding it; else the name finds the one player whose *name key* is the
same. The name key is the name after Unicode NFKC normalization (full-width and compatibility forms
fold to their plain letters: "Ａｄａ" is "Ada"), case folding ("ADA", "ada", "Ada" are one) and
whitespace collapsed ("Ada  Lovelace " is "Ada Lovelace"). Accents are kept: "José" and "Jose" are
two names, because folding them would merge people who are different.

**Ruling:** a registration that gives an ``external_id`` nobody holds yet matches by name only a
player *without* an external id (who then gains it); a player holding a different external id is
another person of the same name, and a new player is made.
"""

from __future__ import annotations

import unicodedata


def name_key(name: str) -> str:
    """The key names are matched by: NFKC, case-folded, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def clean_name(name: str) -> str:
    """The name as stored and shown: NFC, whitespace collapsed, the player's own case kept."""
    return " ".join(unicodedata.normalize("NFC", name).split())
