"""A reported seat's dictionary (app/core/results.py), the form a result's history and claims keep."""

from __future__ import annotations

from dataclasses import asdict, fields

from app.core.results import Report, ReportedSeat


def test_a_seat_as_dict_is_its_dataclass_dict_with_every_field_in_order() -> None:
    seat = ReportedSeat(
        "e1", place=2, score=1.5, body_points=3.0, differential=-1.0, character="Ra", violation=True
    )
    assert seat.as_dict() == asdict(seat)
    assert list(seat.as_dict()) == [f.name for f in fields(ReportedSeat)]


def test_a_report_round_trips_through_its_dict() -> None:
    report = Report("played", (ReportedSeat("a", place=1), ReportedSeat("b", place=2, violation=True)))
    assert Report.from_dict(report.as_dict()) == report
    assert report.as_dict()["seats"][1] == asdict(report.seats[1])
