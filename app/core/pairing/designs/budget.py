"""The time budget and progress of a design search (formats.md "Round robin, N seats"; api.md
"Stateless tools", ``POST /v1/schedules/round-robin``).

The time budget is the caller's ``should_stop`` callback: no clock is read here. The searches poll it
sparingly through :class:`Stopper`, which remembers that it said yes so the report can warn that the
search stopped at its time budget.
"""

from __future__ import annotations

from collections.abc import Callable

StopFn = Callable[[], bool]
ProgressFn = Callable[[float], None]


class Stopper:
    """Polls the caller's should_stop (sparingly) and remembers once it said yes."""

    def __init__(self, should_stop: StopFn | None) -> None:
        self.fn = should_stop
        self.stopped = False

    def __call__(self) -> bool:
        if not self.stopped and self.fn is not None and self.fn():
            self.stopped = True
        return self.stopped
