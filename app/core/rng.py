"""Seeded randomness, one named stream per purpose (formats.md "Randomness and the event seed").

Every random choice the service makes — shuffles, dice, tie-break values, deck orders,
first players — comes from a stream derived from the event seed and a purpose string,
so any draw can be re-derived after the event from the revealed seed. Two purposes
never share a stream, so adding a new kind of draw never changes an old one.
"""

from __future__ import annotations

import hashlib
import random


def derive(seed: str, purpose: str) -> int:
    """A 256-bit integer from the seed and the purpose (SHA-256 of both)."""
    digest = hashlib.sha256(f"{seed}\x1f{purpose}".encode()).digest()
    return int.from_bytes(digest, "big")


def stream(seed: str, purpose: str) -> random.Random:
    """A generator for one purpose, e.g. ``stream(seed, "round:3:pairing")``."""
    return random.Random(derive(seed, purpose))


def commitment(seed: str) -> str:
    """The published SHA-256 of the event seed (hex); the seed itself is revealed at the end."""
    return hashlib.sha256(seed.encode()).hexdigest()
