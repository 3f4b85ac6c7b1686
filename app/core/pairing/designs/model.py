"""What a design search returns: tables, rounds when asked for, and the report (formats.md "Round robin,
N seats"; api.md "Stateless tools", ``POST /v1/schedules/round-robin``).

The histogram in ``as_dict()`` has string keys (JSON object keys), ascending, including 0 when a pair
never meets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NotRequired

from typing_extensions import TypedDict


class GamesRangeDict(TypedDict):
    min: int
    max: int


class PairMeetingsDict(TypedDict):
    min: int
    max: int
    histogram: dict[str, int]


class DesignReportDict(TypedDict):
    games_per_player: GamesRangeDict
    pair_meetings: PairMeetingsDict
    exact: bool
    warnings: list[str]


class DesignDict(TypedDict):
    """A design as the schedule tool answers it (seat indices; ``rounds`` when asked for)."""

    tables: list[list[int]]
    rounds: NotRequired[list[list[int]]]
    report: DesignReportDict


@dataclass(frozen=True)
class GamesRange:
    min: int
    max: int

    def as_dict(self) -> GamesRangeDict:
        return {"min": self.min, "max": self.max}


@dataclass(frozen=True)
class PairMeetings:
    min: int
    max: int
    histogram: dict[int, int]  # meetings -> number of pairs meeting that often

    def as_dict(self) -> PairMeetingsDict:
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

    def as_dict(self) -> DesignReportDict:
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

    def as_dict(self) -> DesignDict:
        out: DesignDict = {"tables": [list(t) for t in self.tables], "report": self.report.as_dict()}
        if self.rounds is not None:
            out["rounds"] = [list(r) for r in self.rounds]
        return out
