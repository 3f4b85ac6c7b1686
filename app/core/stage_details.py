"""What a stage drew when it opened and keeps between rounds (``Stage.details``; formats.md "Stages").

One frozen shape per format: every stage keeps its ``entries`` (in seed order), its ``groups``
(entry → group name, when it is split) and a ``note`` for the organizer; a round robin keeps its
``schedule`` (and, for N seats, the seat numbers and the design's report); a single elimination keeps
its ``bracket``. Keys a preset keeps on a stage (e.g. a semifinal's seeding) travel in ``extra``,
and each preset reads them through a typed view of its own. ``to_dict`` writes the stored JSON
document, ``from_dict`` reads it back; they round-trip.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeVar

from app.core.vocabulary import StageFormatName

Table = tuple[str, ...]
D = TypeVar("D", bound="StageDetails")


@dataclass(frozen=True)
class StageDetails:
    entries: tuple[str, ...] = ()
    groups: Mapping[str, str] = field(default_factory=dict)
    note: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls: type[D], raw: Mapping[str, Any]) -> D:
        own = {f.name for f in fields(cls)} - {"extra"}
        values: dict[str, Any] = {}
        for name in own:
            if raw.get(name) is not None:
                values[name] = cls._read(name, raw[name])
        return cls(**values, extra={k: v for k, v in raw.items() if k not in own})

    @classmethod
    def _read(cls, name: str, value: Any) -> Any:
        if name == "entries":
            return tuple(value)
        if name == "groups":
            return dict(value)
        return value

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "extra" or value is None or (f.name == "groups" and not value):
                continue
            out[f.name] = self._write(f.name, value)
        out.update(self.extra)
        return out

    def _write(self, name: str, value: Any) -> Any:
        if name == "entries":
            return list(value)
        if name == "groups":
            return dict(value)
        return value

    def with_extra(self: D, **values: Any) -> D:
        """The same details with these preset-owned keys set."""
        return replace(self, extra={**self.extra, **values})

    def group_of(self, entry_id: str) -> str | None:
        return self.groups.get(entry_id)

    def members_by_group(self) -> dict[str, list[str]]:
        """Every group's entries in seed order; an unsplit stage is the one group ``A``."""
        out: dict[str, list[str]] = {}
        for e in self.entries:
            out.setdefault(self.groups.get(e, "A"), []).append(e)
        return out


@dataclass(frozen=True)
class RoundRobinDetails(StageDetails):
    """``schedule``: round by round, the tables of a 2-seat round robin; for N seats, one entry holding
    every table of the searched design (None while the search runs)."""

    schedule: tuple[tuple[Table, ...], ...] | None = None
    seat_numbers: Mapping[str, Mapping[str, int]] | None = None
    report: Mapping[str, Any] | None = None

    @classmethod
    def _read(cls, name: str, value: Any) -> Any:
        if name == "schedule":
            return tuple(tuple(tuple(t) for t in rnd) for rnd in value)
        return super()._read(name, value)

    def _write(self, name: str, value: Any) -> Any:
        if name == "schedule":
            return [[list(t) for t in rnd] for rnd in value]
        return super()._write(name, value)


@dataclass(frozen=True)
class BracketDetails(StageDetails):
    """``bracket``: the drawn slots and the number of rounds of a 2-seat single elimination (or of a
    playoff of duels among three or more, played as one; None for a one-table playoff); the whole
    bracket of a double elimination (``DoubleBracket.to_dict``)."""

    bracket: Mapping[str, Any] | None = None


DETAILS_BY_FORMAT: Mapping[StageFormatName, type[StageDetails]] = {
    StageFormatName.ROUND_ROBIN: RoundRobinDetails,
    StageFormatName.SINGLE_ELIMINATION: BracketDetails,
    StageFormatName.DOUBLE_ELIMINATION: BracketDetails,
    StageFormatName.PLAYOFF: BracketDetails,
}


def parse_details(fmt: str, raw: Mapping[str, Any]) -> StageDetails:
    """A stored details document read as its format's shape."""
    return DETAILS_BY_FORMAT.get(StageFormatName(fmt), StageDetails).from_dict(raw)


def tables_of(tables: Sequence[Sequence[str]]) -> tuple[Table, ...]:
    return tuple(tuple(t) for t in tables)
