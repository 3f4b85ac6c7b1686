"""The projector fits any field: at 1920×1080, a 40-entry event's standings and 20 tables page
through by themselves, every row shown within a minute, none cut, the text at least 28 px."""

from __future__ import annotations

import time
from typing import Any

from tests.web.conftest import ADMIN, api, bearer, items, shot


def test_the_projector_shows_every_row_of_a_40_entry_event(server: str, browser: Any) -> None:
    client = api(server)
    made = client.post(
        "/v1/events",
        json={
            "name": "Big Open",
            "game": "generic",
            "settings": {"stages": [{"format": "swiss", "rounds": 5}]},
        },
        headers=bearer(ADMIN),
    ).json()
    org = bearer(made["organizer_token"])
    # some names long enough to wrap: the pages take each row's own height
    rows = [
        {"name": f"Player {i + 1:02d}" + (" Bartholomew-Featherstonehaugh" if i % 7 == 0 else "")}
        for i in range(40)
    ]
    entries = items(client.post(f"/v1/events/{made['id']}/entries", json=rows, headers=org).json())
    rnd = client.post(f"/v1/events/{made['id']}/start", headers=org).json()["round"]
    tables = {str(m["table"]) for m in rnd["matches"]}
    assert len(tables) == 20
    page = browser.new_page(viewport={"width": 1920, "height": 1080}, locale="en-US")
    page.goto(f"{server}/e/{made['id']}/projector?every=2")
    seen_entries: set[str] = set()
    seen_tables: set[str] = set()
    pages_seen: set[str] = set()
    began = time.monotonic()
    while time.monotonic() - began < 60 and (len(seen_entries) < 40 or len(seen_tables) < 20):
        shown = page.evaluate(
            """() => Array.from(document.querySelectorAll('[data-pages] tbody tr')).filter(r => !r.hidden).map(r => {
                 const b = r.getBoundingClientRect(), cell = r.querySelector('td');
                 return {entry: r.getAttribute('data-entry'), first: cell.textContent.trim(),
                         top: b.top, bottom: b.bottom, size: parseFloat(getComputedStyle(cell).fontSize)};
               })"""
        )
        assert shown, "the projector shows rows"
        for row in shown:
            assert row["top"] >= 0 and row["bottom"] <= 1080, row  # never cut
            assert row["size"] >= 28, row
            if row["entry"]:
                seen_entries.add(row["entry"])
            else:
                seen_tables.add(row["first"])
        pages_seen.add(page.inner_text("section[aria-labelledby='h-st'] .pager"))
        assert page.evaluate("document.scrollingElement.scrollHeight") <= 1080  # nothing to scroll
        time.sleep(0.5)
    elapsed = time.monotonic() - began
    assert seen_entries == {e["id"] for e in entries}, f"{len(seen_entries)} of 40 rows in {elapsed:.0f} s"
    assert seen_tables == tables
    assert elapsed < 60
    assert len(pages_seen) >= 2 and all(" of " in p for p in pages_seen), pages_seen
    shot(page, "projector-40")
    page.close()
