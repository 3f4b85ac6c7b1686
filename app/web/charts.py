"""A rating history as an SVG line chart drawn on the server (docs/web.md "Rating pages"): a point
per game, left to right in rating order, higher ratings drawn higher, a few labelled ticks on each
axis. The template ``_chart.html`` writes it out; this module only places things."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.services.profiles import Game

WIDTH, HEIGHT = 600, 240
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 12, 36  # the plot's margins, for the tick labels
MAX_TICKS = 5


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    rating: float
    title: str  # the date, the opponents and the change, in the page's words


@dataclass(frozen=True)
class Tick:
    at: float  # x of an x tick, y of a y tick
    label: str


@dataclass(frozen=True)
class Chart:
    points: list[Point]
    line: str  # the polyline's points: the rating before the first game, then one per game
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    label: str  # the chart in one sentence (its aria-label)
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    bottom: int = HEIGHT - BOTTOM


def nice_step(span: float, most: int = MAX_TICKS) -> float:
    """The smallest of 1, 2, 5 × 10^k that covers ``span`` in at most ``most`` - 1 steps."""
    raw = max(span, 1e-9) / max(most - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _r(x: float) -> float:
    return round(x, 1)


def rating_chart(games: Sequence[Game], t: Callable[..., str], pool: str) -> Chart | None:
    """The chart of a pool's history (None when there is none)."""
    if not games:
        return None
    values = [games[0].before, *(g.after for g in games)]
    step = nice_step(max(values) - min(values) or 10)
    lo = math.floor(min(values) / step) * step
    hi = math.ceil(max(values) / step) * step
    if hi == lo:
        lo, hi = lo - step, hi + step
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return _r(LEFT + plot_w * i / len(games))

    def y(v: float) -> float:
        return _r(TOP + plot_h * (hi - v) / (hi - lo))

    points = []
    for i, g in enumerate(games, start=1):
        words = t(
            "chart_point",
            n=i,
            date=g.at.strftime("%Y-%m-%d") if g.at else "—",
            opponents=", ".join(g.opponents) or "—",
            change=f"{_r(g.change):+.1f}",
            rating=f"{_r(g.after):.1f}",
        )
        points.append(Point(x(i), y(g.after), _r(g.after), words))
    line = " ".join(f"{x(i)},{y(v)}" for i, v in enumerate(values))
    count = round((hi - lo) / step)
    y_ticks = [Tick(y(lo + k * step), f"{lo + k * step:g}") for k in range(count + 1)]
    x_step = max(1, math.ceil(len(games) / (MAX_TICKS - 1)))
    x_ticks = [Tick(x(i), str(i)) for i in range(0, len(games) + 1, x_step)]
    if x_ticks[-1].label != str(len(games)):
        x_ticks.append(Tick(x(len(games)), str(len(games))))
    label = t(
        "chart_label",
        pool=pool,
        n=len(games),
        first=f"{_r(values[0]):.1f}",
        last=f"{_r(values[-1]):.1f}",
        high=f"{_r(max(values)):.1f}",
        low=f"{_r(min(values)):.1f}",
    )
    return Chart(points, line, x_ticks, y_ticks, label)
