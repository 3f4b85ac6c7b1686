"""Check-in at the door, in Chromium on both backends: the organizer registers players from the
console; each printed link card's QR code (decoded with zxing-cpp from a screenshot of the sheet as
printed) opens the player's check-in page on a phone, which changes nothing until the player taps
to confirm (or presses Enter: the button has the focus); the console's list of who is still missing
shrinks as they arrive, live and after a reload; at the start the missing are dropped."""

from __future__ import annotations

import io
from typing import Any
from urllib.parse import urlsplit

import pytest
import zxingcpp
from PIL import Image

from tests.web.conftest import ADMIN, api, bearer, items, shot

NAMES = ["Hana", "Ichiro", "Jun", "Kei"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "locale": "en-US"}


@pytest.fixture(scope="module")
def event(hall_server: str) -> dict[str, Any]:
    """One Swiss that checks players in, shared by the module's tests."""
    made = (
        api(hall_server)
        .post(
            "/v1/events",
            json={"name": "Door Open", "game": "generic", "settings": {"check_in": True}},
            headers=bearer(ADMIN),
        )
        .json()
    )
    return {"id": made["id"], "token": made["organizer_token"], "base": hall_server}


def _missing(page: Any) -> list[str]:
    return page.locator("#missing li").all_inner_texts()


def _checked_in(base: str, eid: str) -> set[str]:
    return {e["name"] for e in items(api(base).get(f"/v1/events/{eid}/entries").json()) if e["checked_in"]}


def test_players_check_in_by_scanning_their_card(event: dict[str, Any], browser: Any) -> None:
    base, eid = event["base"], event["id"]
    desk = browser.new_context(viewport={"width": 1024, "height": 800}, locale="en-US")
    page = desk.new_page()
    page.goto(f"{base}/console")
    page.fill("#org-token", event["token"])
    with page.expect_navigation():
        page.get_by_role("button", name="Sign in").click()
    page.fill("#names", "\n".join(NAMES))
    with page.expect_navigation():
        page.get_by_role("button", name="Register").click()

    # the link sheet as printed: one card a player, its code the player's check-in link
    page.emulate_media(media="print")
    sheet = Image.open(io.BytesIO(page.screenshot(full_page=True)))
    page.emulate_media(media="screen")
    shot(page, "check-in-cards")
    codes = sorted(r.text for r in zxingcpp.read_barcodes(sheet) if r.format == zxingcpp.BarcodeFormat.QRCode)
    assert len(codes) == len(NAMES)
    personal = {
        urlsplit(page.locator("a.personal").nth(i).get_attribute("href") or "").fragment
        for i in range(len(NAMES))
    }
    assert all(urlsplit(c).path == f"/e/{eid}/check-in" for c in codes)
    assert {urlsplit(c).fragment for c in codes} == personal  # the player's own token, in the fragment
    page.goto(f"{base}/console/e/{eid}")
    assert sorted(_missing(page)) == sorted(NAMES)
    assert page.inner_text("#h-missing") == "Not checked in yet (4)"

    # a phone opens the first code: nothing changes until the tap
    phone_ctx = browser.new_context(**PHONE)
    phone = phone_ctx.new_page()
    phone.goto(codes[0])
    confirm = phone.locator("button[data-check-in]")
    confirm.wait_for()
    who = confirm.inner_text().removeprefix("Check ").removesuffix(" in")
    assert who in NAMES and _checked_in(base, eid) == set()
    phone.reload()  # a reload, too, checks nobody in
    confirm.wait_for()
    assert _checked_in(base, eid) == set()
    confirm.tap()
    phone.wait_for_selector("#door-here")
    assert phone.inner_text("#door-status") == "Checked in. Welcome!"
    assert _checked_in(base, eid) == {who}
    shot(phone, "check-in-phone")
    phone.reload()
    phone.wait_for_selector("#door-here")
    assert phone.locator("button[data-check-in]").count() == 0

    # the console's list shrinks live (the stream), and after a reload
    page.wait_for_function("n => document.querySelectorAll('#missing li').length === n", arg=3)
    assert who not in _missing(page)
    page.reload()
    assert sorted(_missing(page)) == sorted(set(NAMES) - {who})

    # by keyboard: the button has the focus when the page opens, Enter checks in
    second = phone_ctx.new_page()
    second.goto(codes[1])
    second.locator("button[data-check-in]").wait_for()
    second.wait_for_function(
        "() => document.activeElement && document.activeElement.hasAttribute('data-check-in')"
    )
    other = second.locator("button[data-check-in]").inner_text().removeprefix("Check ").removesuffix(" in")
    second.keyboard.press("Enter")
    second.wait_for_selector("#door-here")
    assert second.evaluate("() => document.activeElement.id") == "door-status"
    assert _checked_in(base, eid) == {who, other}
    page.wait_for_function("n => document.querySelectorAll('#missing li').length === n", arg=2)

    # the start drops the missing; the check-in page then says it is closed
    with page.expect_navigation():
        page.get_by_role("button", name="Start the event").click()
    assert page.locator("#check-in").count() == 0
    statuses = {e["name"]: e["status"] for e in items(api(base).get(f"/v1/events/{eid}/entries").json())}
    assert {n for n, s in statuses.items() if s == "active"} == {who, other}
    late = phone_ctx.new_page()
    late.goto(codes[2])
    late.wait_for_selector("#h-door")
    assert "Check-in is closed" in late.inner_text("#door")
    assert late.locator("button[data-check-in]").count() == 0
    for ctx in (desk, phone_ctx):
        ctx.close()
