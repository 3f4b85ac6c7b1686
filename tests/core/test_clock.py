"""The round clock's rules (app/core/clock.py), as properties: pausing never loses or gains time,
an extension adds exactly its seconds, a running clock past its end reads as ended."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core import clock as c
from app.core.clock import Clock, ClockAction, ClockState
from app.core.errors import Conflict, InvalidInput

T0 = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)


@given(
    length=st.integers(1, 10_000),
    steps=st.lists(st.tuples(st.floats(0, 500), st.floats(0, 500), st.integers(0, 600)), max_size=8),
)
def test_pausing_keeps_the_time_and_extensions_add_theirs(
    length: int, steps: list[tuple[float, float, int]]
) -> None:
    now = T0
    clock = c.apply(Clock(), ClockAction.START, now, seconds=length, round=1)
    played, added = 0.0, 0
    for run, rest, extra in steps:
        run = min(run, c.remaining(clock, now) - 0.001)
        if run <= 0:
            break
        now += timedelta(seconds=run)
        played += run
        clock = c.apply(clock, ClockAction.PAUSE, now)
        now += timedelta(seconds=rest)  # paused: nothing runs
        if extra:
            clock = c.apply(clock, ClockAction.EXTEND, now, seconds=extra)
            added += extra
        clock = c.apply(clock, ClockAction.RESUME, now)
    assert c.remaining(clock, now) == pytest.approx(length + added - played, abs=1e-3)
    assert clock.duration_s == length + added


def test_a_running_clock_past_its_end_reads_as_ended() -> None:
    clock = c.apply(Clock(), ClockAction.START, T0, seconds=60)
    assert c.at(clock, T0 + timedelta(seconds=59)).state is ClockState.RUNNING
    late = c.at(clock, T0 + timedelta(seconds=61))
    assert late.state is ClockState.ENDED and c.remaining(late, T0 + timedelta(seconds=61)) == 0
    # a table's extra time plays on after the room's is up, and a stop ends it
    tabled = c.apply(clock, ClockAction.EXTEND, T0, seconds=30, match_id="m1")
    assert c.remaining(c.at(tabled, T0 + timedelta(seconds=70)), T0 + timedelta(seconds=70), "m1") == 20
    assert c.apply(tabled, ClockAction.STOP, T0 + timedelta(seconds=10)).tables == {}


def test_moves_the_state_does_not_allow_are_refused() -> None:
    with pytest.raises(InvalidInput):
        c.apply(Clock(), ClockAction.START, T0)  # no seconds and no default
    with pytest.raises(Conflict):
        c.apply(Clock(), ClockAction.PAUSE, T0)
    running = c.apply(Clock(), ClockAction.START, T0, default_s=900)
    assert running.duration_s == 900
    with pytest.raises(Conflict):
        c.apply(running, ClockAction.START, T0, seconds=5)
    with pytest.raises(Conflict):
        c.apply(running, ClockAction.RESUME, T0)
    with pytest.raises(InvalidInput):
        c.apply(running, ClockAction.EXTEND, T0, seconds=0)
    # past its end it may start again
    assert c.apply(running, ClockAction.START, T0 + timedelta(hours=1), seconds=5).state is ClockState.RUNNING
