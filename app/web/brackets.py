"""An elimination stage's bracket drawn as SVG, server-side (docs/web.md "Brackets"): a column per
round, a box per match with its seats (the winner marked by weight and a ✓, never by colour alone),
and a line from the match each seat last played in to the match it plays next — which draws a
single elimination's tree and a double elimination's winners and losers paths alike, from what was
played rather than from a second copy of the format's rules. A double elimination's two paths are
drawn as two bands, each under its heading, the winners' (and the grand final) above the losers':
which path a match is on is the drawn bracket's (``DoubleMatch.bracket``), by the key the round's
pairing gives each table."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

BOX_W, ROW_H, PAD, GAP_X, GAP_Y, HEAD = 190, 22, 6, 46, 14, 26


@dataclass(frozen=True)
class Box:
    x: int
    y: int
    h: int


# a double elimination's paths, top to bottom (its grand final continues the winners' path)
BANDS = ("winners", "losers")


def bracket_svg(
    rounds: list[tuple[int, list[Any]]],
    label: str,
    round_label: Any,
    won_label: str,
    bands: dict[str, str] | None = None,
    band_labels: dict[str, str] | None = None,
) -> str:
    """``rounds``: (round number, tables) of one stage, in order, each table with ``match`` and
    ``seats`` (dicts with ``entry_id``, ``name``, ``place``) as the pages' ``Table``;
    ``round_label(n)`` names a column. ``bands`` (a double elimination's): each match's path by its
    id, ``winners`` or ``losers``; each path is drawn as its own band under its ``band_labels``
    heading, the winners' above. Returns one ``<svg>`` element."""
    if not rounds:
        return ""
    used = [b for b in BANDS if bands and b in bands.values()] or [""]

    def band_of(table: Any) -> str:
        return (bands or {}).get(str(table.match.id), used[0]) if bands else ""

    def height(tables: list[Any]) -> int:
        return sum(ROW_H * max(len(t.seats), 1) + 2 * PAD + GAP_Y for t in tables)

    band_h = {b: max(height([t for t in tables if band_of(t) == b]) for _, tables in rounds) for b in used}
    band_head = HEAD if bands else 0
    top: dict[str, int] = {}
    y0 = HEAD
    for b in used:
        top[b] = y0 + band_head
        y0 = top[b] + band_h[b]
    total_h = y0
    boxes: dict[str, Box] = {}
    last_box: dict[str, Box] = {}  # the box an entry last played in
    parts: list[str] = []
    lines: list[str] = []
    if bands:
        for b in used:
            text = escape((band_labels or {}).get(b, b))
            parts.append(f'<text class="br-band" data-band="{b}" x="0" y="{top[b] - 8}">{text}</text>')
    for col, (number, tables) in enumerate(rounds):
        x = col * (BOX_W + GAP_X)
        parts.append(
            f'<text class="br-head" x="{x + BOX_W // 2}" y="16" text-anchor="middle">{escape(round_label(number))}</text>'
        )
        for b in used:
            mine = [t for t in tables if band_of(t) == b]
            # a column's boxes spread over its band's height, so later rounds sit between their feeders
            slot = band_h[b] / max(len(mine), 1)
            for i, table in enumerate(mine):
                h = ROW_H * max(len(table.seats), 1) + 2 * PAD
                y = int(top[b] + i * slot + (slot - h) / 2)
                box = Box(x, y, h)
                boxes[str(table.match.id)] = box
                status = escape(str(table.match.status))
                path = f' data-band="{b}"' if bands else ""
                parts.append(f'<g class="br-match m-{status}"{path}>')
                parts.append(f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{h}" rx="4"/>')
                for j, seat in enumerate(table.seats):
                    won = seat.get("place") == 1 and str(table.match.status) in ("confirmed", "reported")
                    cls = "br-seat won" if won else "br-seat"
                    ty = y + PAD + ROW_H * j + 15
                    name = escape(str(seat.get("name") or "—"))
                    mark = (
                        f' <tspan class="br-mark">✓</tspan><title>{escape(won_label)}</title>' if won else ""
                    )
                    parts.append(f'<text class="{cls}" x="{x + 8}" y="{ty}">{name}{mark}</text>')
                parts.append("</g>")
                for seat in table.seats:
                    before = last_box.get(str(seat.get("entry_id")))
                    if before is not None and before.x < x:
                        x1, y1 = before.x + BOX_W, before.y + before.h // 2
                        x2, y2 = x, y + h // 2
                        mid = x1 + GAP_X // 2
                        lines.append(f'<path class="br-line" d="M{x1} {y1} H{mid} V{y2} H{x2}"/>')
        for table in tables:
            for seat in table.seats:
                last_box[str(seat.get("entry_id"))] = boxes[str(table.match.id)]
    width = len(rounds) * (BOX_W + GAP_X) - GAP_X
    return (
        f'<svg class="bracket-svg" role="img" aria-label="{escape(label)}" viewBox="0 0 {width} {total_h}" '
        f'width="{width}" height="{total_h}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(label)}</title>{''.join(lines)}{''.join(parts)}</svg>"
    )
