"""The slips' QR codes scan: every slip's code decoded with zxing-cpp from a screenshot of the
page and from the printed PDF rendered at 150 dpi (poppler's pdftoppm, installed by
tests/services.sh), each at least 20 mm on paper, and each decoded URL opens its table's page."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import zxingcpp
from PIL import Image

from tests.web.conftest import ADMIN, api, bearer, items, reloaded, shot, submit

PDFTOPPM = shutil.which("pdftoppm") or "/usr/bin/pdftoppm"
MM_PER_CSS_PX = 25.4 / 96


def _event(server: str, players: int) -> tuple[str, list[dict[str, Any]]]:
    client = api(server)
    made = client.post(
        "/v1/events",
        json={
            "name": "Slip Open",
            "game": "generic",
            "settings": {"stages": [{"format": "swiss", "rounds": 3}]},
        },
        headers=bearer(ADMIN),
    ).json()
    org = bearer(made["organizer_token"])
    rows = [{"name": f"Player {i + 1}"} for i in range(players)]
    assert (
        len(items(client.post(f"/v1/events/{made['id']}/entries", json=rows, headers=org).json())) == players
    )
    started = client.post(f"/v1/events/{made['id']}/start", headers=org).json()
    return made["id"], [m for m in started["round"]["matches"] if m["status"] == "pending"]


def _decoded(image: Image.Image) -> list[str]:
    return sorted(r.text for r in zxingcpp.read_barcodes(image) if r.format == zxingcpp.BarcodeFormat.QRCode)


def test_every_slip_code_scans_on_screen_and_on_paper(server: str, browser: Any, tmp_path: Path) -> None:
    assert Path(PDFTOPPM).exists(), "no pdftoppm: run tests/services.sh (it installs poppler-utils)"
    event_id, matches = _event(server, 12)
    expected = sorted(f"{server}/e/{event_id}/m/{m['id']}" for m in matches)
    page = browser.new_page(viewport={"width": 1024, "height": 800}, locale="en-US")
    page.goto(f"{server}/e/{event_id}/print/slips?paper=a4")
    codes = page.locator(".qr svg")
    assert codes.count() == len(matches) == 6
    for i in range(codes.count()):
        svg = codes.nth(i)
        assert svg.get_attribute("viewBox"), "the code scales with its viewBox"
        box = svg.bounding_box()
        assert box is not None and box["width"] * MM_PER_CSS_PX >= 20 and box["width"] == box["height"]
        # one slip's code, as a phone held over the screen sees it
        one = _decoded(Image.open(io.BytesIO(svg.screenshot())))
        assert one == [page.locator(".slip .url").nth(i).inner_text()]
    # the whole page at once
    screen = _decoded(Image.open(io.BytesIO(page.screenshot(full_page=True))))
    assert screen == expected
    shot(page, "slips-qr")

    # on paper: the printed PDF at 150 dpi
    page.emulate_media(media="print")
    pdf = tmp_path / "slips.pdf"
    pdf.write_bytes(page.pdf(prefer_css_page_size=True))
    done = subprocess.run(
        [PDFTOPPM, "-r", "150", "-gray", "-png", str(pdf), str(tmp_path / "page")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    pages = sorted(tmp_path.glob("page*.png"))
    assert pages
    printed = sorted(url for p in pages for url in _decoded(Image.open(p)))
    assert printed == expected
    # each code printed at least 20 mm wide, quiet zone aside: the symbol's span at 150 dots an inch
    sizes = [
        r.position.top_right.x - r.position.top_left.x
        for p in pages
        for r in zxingcpp.read_barcodes(Image.open(p))
    ]
    assert len(sizes) == len(matches) and all(px / 150 * 25.4 >= 20 for px in sizes), sizes

    # every decoded URL opens its table's page
    by_url = {f"{server}/e/{event_id}/m/{m['id']}": m for m in matches}
    for url in printed:
        page.emulate_media(media="screen")
        page.goto(url)
        m = by_url[url]
        assert urlsplit(page.url).path == f"/e/{event_id}/m/{m['id']}"
        text = page.inner_text("main")
        assert f"Table {m['table']}" in text and all(s["name"] in text for s in m["seats"])
    page.close()


def test_personal_links_print_as_cards_whose_codes_open_each_players_page(
    server: str, browser: Any, tmp_path: Path
) -> None:
    client = api(server)
    made = client.post("/v1/events", json={"name": "Cards", "game": "generic"}, headers=bearer(ADMIN)).json()
    page = browser.new_page(viewport={"width": 1024, "height": 800}, locale="en-US")
    page.goto(f"{server}/console")
    page.fill("#org-token", made["organizer_token"])
    with page.expect_navigation():
        page.get_by_role("button", name="Sign in").click()
    names = ["Hana", "Ichiro", "Jun"]
    page.fill("#names", "\n".join(names))
    with page.expect_navigation():
        page.get_by_role("button", name="Register").click()
    links = {page.locator("a.personal").nth(i).get_attribute("href") for i in range(3)}
    cards = page.locator("article.link-card")
    assert cards.count() == 3
    for i in range(3):
        assert _decoded(Image.open(io.BytesIO(cards.nth(i).locator("svg").screenshot()))) == [
            cards.nth(i).locator(".url").inner_text()
        ]
    page.emulate_media(media="print")
    assert not page.locator("#entries").is_visible() and cards.nth(0).is_visible()  # only the cards print
    pdf = tmp_path / "links.pdf"
    pdf.write_bytes(page.pdf())
    done = subprocess.run(
        [PDFTOPPM, "-r", "150", "-gray", "-png", str(pdf), str(tmp_path / "links")],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0
    printed = sorted(u for p in sorted(tmp_path.glob("links*.png")) for u in _decoded(Image.open(p)))
    assert printed == sorted(links)
    # each printed code opens that player's own page
    opened = []
    for url in printed:
        phone = browser.new_context(locale="en-US").new_page()
        phone.goto(url)
        phone.wait_for_selector("#me h2")
        opened.append(phone.inner_text("#me h2"))
        phone.context.close()
    assert sorted(opened) == sorted(names)
    page.close()


def _player_page(phone: Any, url: str) -> str | None:
    """The name a personal link opens the player's page of, in a new tab of the phone's browser
    (the link's token, in its fragment, is the one the page uses); None when the page asks for a
    token instead (the link's token is refused)."""
    tab = phone.new_page()
    tab.goto(url)
    tab.wait_for_selector("#me h2, #token-form:not([hidden])")
    name = tab.inner_text("#me h2") if tab.locator("#me h2").count() else None
    tab.close()
    return name


def _card_codes(page: Any) -> list[str]:
    """Each link card's code, decoded from its own screenshot, checked against the link it prints."""
    cards = page.locator("article.link-card")
    out = []
    for i in range(cards.count()):
        code = cards.nth(i).locator(".qr svg")
        box = code.bounding_box()
        assert box is not None and box["width"] * MM_PER_CSS_PX >= 20
        decoded = _decoded(Image.open(io.BytesIO(code.screenshot())))
        assert decoded == [cards.nth(i).locator(".url").inner_text()]
        out += decoded
    return out


def _printed(page: Any, tmp_path: Path, stem: str) -> list[str]:
    """The codes of the page as printed: its PDF rendered at 150 dpi, each code at least 20 mm."""
    page.emulate_media(media="print")
    pdf = tmp_path / f"{stem}.pdf"
    pdf.write_bytes(page.pdf())
    page.emulate_media(media="screen")
    done = subprocess.run(
        [PDFTOPPM, "-r", "150", "-gray", "-png", str(pdf), str(tmp_path / stem)],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    found = [r for p in sorted(tmp_path.glob(f"{stem}*.png")) for r in zxingcpp.read_barcodes(Image.open(p))]
    widths = [r.position.top_right.x - r.position.top_left.x for r in found]
    assert all(px / 150 * 25.4 >= 20 for px in widths), widths
    return sorted(r.text for r in found if r.format == zxingcpp.BarcodeFormat.QRCode)


def test_a_new_link_and_new_links_for_every_player_scan_and_void_the_old_ones(
    server: str, browser: Any, tmp_path: Path
) -> None:
    client = api(server)
    made = client.post("/v1/events", json={"name": "Desk", "game": "generic"}, headers=bearer(ADMIN)).json()
    eid, org = made["id"], bearer(made["organizer_token"])
    # links handed out earlier, in a batch of their own (the API's); one player dropped since
    first = items(
        client.post(
            f"/v1/events/{eid}/entries", json=[{"name": n} for n in ("Lena", "Kai", "Omar")], headers=org
        ).json()
    )
    old = {e["name"]: e["entry_token"] for e in first}
    omar = next(e for e in first if e["name"] == "Omar")
    assert client.delete(f"/v1/events/{eid}/entries/{omar['id']}", headers=org).status_code == 200
    page = browser.new_page(viewport={"width": 1024, "height": 800}, locale="en-US")
    phone = browser.new_context(locale="en-US")
    page.goto(f"{server}/console")
    page.fill("#org-token", made["organizer_token"])
    submit(page, page.get_by_role("button", name="Sign in"))

    # one player's new link: its card's code opens Lena's page, her old link asks for a token
    submit(page, page.get_by_role("button", name="New link for Lena"))
    assert page.locator("article.link-card").count() == 1
    [lena] = _card_codes(page)
    assert _player_page(phone, lena) == "Lena"
    assert _player_page(phone, f"{server}/e/{eid}/me#token={old['Lena']}") is None
    # a batch registered next: Lena's card stays on the page beside the new one
    page.fill("#names", "Nao")
    submit(page, page.get_by_role("button", name="Register"))
    shown = _card_codes(page)
    assert len(shown) == 2 and shown[0] == lena
    nao = shown[1]

    # every player's link: refused in words without the box ticked, and nothing changed
    page.eval_on_selector("#links-sure", "el => el.removeAttribute('required')")
    page.locator("#all-links summary").click()
    submit(page, page.get_by_role("button", name="New links for all 3 players"))
    assert "tick the box to confirm" in page.inner_text(".error")
    assert client.get(f"/e/{eid}/me/view", headers=bearer(lena.split("#token=")[1])).status_code == 200
    assert page.locator("#all-links").get_attribute("open") is not None  # the form, kept open
    page.check("#links-sure")
    submit(page, page.get_by_role("button", name="New links for all 3 players"))
    assert page.inner_text("#h-links") == "Every player's link (3)"
    cards = page.locator("article.link-card")
    assert [cards.nth(i).locator("h3").inner_text() for i in range(3)] == ["Kai", "Lena", "Nao"]
    sheet = _card_codes(page)
    assert sorted(_decoded(Image.open(io.BytesIO(page.screenshot(full_page=True))))) == sorted(sheet)
    assert _printed(page, tmp_path, "sheet") == sorted(sheet)
    # each new card opens its player's page; every link handed out before is refused; the dropped
    # player keeps theirs
    assert [_player_page(phone, url) for url in sheet] == ["Kai", "Lena", "Nao"]
    voided = [lena, nao, *(f"{server}/e/{eid}/me#token={old[n]}" for n in ("Lena", "Kai"))]
    assert [_player_page(phone, url) for url in voided] == [None] * 4
    assert _player_page(phone, f"{server}/e/{eid}/me#token={old['Omar']}") == "Omar (dropped)"
    history = items(client.get(f"/v1/events/{eid}/history", headers=org).json())
    assert [h["action"] for h in history][-2:] == ["entry_token", "entry_tokens"]
    # shown once: a reload is the console, and sends nothing again
    reloaded(page, client, eid)
    assert page.locator("article.link-card").count() == 0
    phone.close()
    page.close()
