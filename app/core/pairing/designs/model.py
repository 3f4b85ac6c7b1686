"""What a design search returns: tables, rounds when asked for, and the report (formats.md "Round robin,
N seats"; api.md "Stateless tools", ``POST /v1/schedules/round-robin``).

The histogram in ``as_dict()`` has string keys (JSON object keys), ascending, including 0 when a pair
never meets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class GamesRange:
    min: int
    max: int

    def as_dict(self) -> dict[str, int]:
        return {"min": self.min, "max": self.max}


@dataclass(frozen=True)
class PairMeetings:
    min: int
    max: int
    histogram: dict[int, int]  # meetings -> number of pairs meeting that often

    def as_dict(self) -> dict[str, Any]:
        return {
            "min": self.min,
            "max": self.max,
            "histogram": {str(m): c for m, c in sorted(self.histogram.items())},
        }


@dataclass
class DesignReport:
    games_per_player: GamesRange
    pair_meetings: PairMeetings
    exact: bool
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "games_per_player": self.games_per_player.as_dict(),
            "pair_meetings": self.pair_meetings.as_dict(),
            "exact": self.exact,
            "warnings": list(self.warnings),
        }


@dataclass
class Design:
    tables: list[list[int]]
    rounds: list[list[int]] | None
    report: DesignReport

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tables": [list(t) for t in self.tables]}
        if self.rounds is not None:
            out["rounds"] = [list(r) for r in self.rounds]
        out["report"] = self.report.as_dict()
        return out
