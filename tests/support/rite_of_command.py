"""A Rite of Command game record the API and browser tests report with: three rings and even
wagers, one record the adjudicator judges the same way wherever it is sent."""

from __future__ import annotations

RINGS = {
    "rings": [
        [
            {"card": "Shield bearer", "owner": 1},
            {"card": "Mace bearer", "owner": 2},
            {"card": "Club", "owner": 2},
            {"card": "Sword", "owner": 1},
            {"card": "Divine Staff", "owner": 2},
        ],
        [{"card": "Priest of Osiris", "owner": 2}],
        [{"card": "Priest of Osiris", "owner": 2}],
    ],
    "wagers": {"1": 10, "2": 10},
}
