"""Staff in the console, in Chromium on both backends: the organizer names a scorekeeper and a
judge from the console (each sign-in link shown once, with its QR code); each signs in with that
link on a phone; the scorekeeper records a result and is offered nothing else (a forged advance,
pair or drop is refused with 403 and changes nothing); the judge drops a player and swaps two
seats; the audit trail names each by its own ``staff:<id>``; the organizer revokes the scorekeeper
by keyboard alone, and the link stops working."""

from __future__ import annotations

import io
from typing import Any
from urllib.parse import urlsplit

import pytest
import zxingcpp
from PIL import Image

from tests.web.conftest import ADMIN, api, bearer, items, shot, submit

NAMES = ["Aiko", "Bram", "Chen", "Dara", "Emil", "Fumi"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "locale": "en-US"}
ORGANIZER_ONLY = (
    "/start",
    "/pair",
    "/advance",
    "/undo",
    "/rename",
    "/cancel",
    "/entries",
    "/token",
    "/staff",
)


@pytest.fixture(scope="module")
def event(hall_server: str) -> dict[str, Any]:
    """One running Swiss of six, shared by the module's tests."""
    client = api(hall_server)
    made = client.post(
        "/v1/events",
        json={
            "name": "Staffed Open",
            "game": "generic",
            "settings": {"stages": [{"format": "swiss", "rounds": 3}]},
        },
        headers=bearer(ADMIN),
    ).json()
    org = bearer(made["organizer_token"])
    client.post(f"/v1/events/{made['id']}/entries", json=[{"name": n} for n in NAMES], headers=org)
    started = client.post(f"/v1/events/{made['id']}/start", headers=org)
    assert started.status_code in (200, 201), started.text
    return {"id": made["id"], "token": made["organizer_token"], "base": hall_server}


def _issue(page: Any, name: str, role: str) -> str:
    """Name a member from the console's staff panel: its link, shown once, with a QR code of it."""
    page.fill("#staff-name", name)
    page.select_option("#staff-role", role)
    submit(page, page.get_by_role("button", name="Give a sign-in link"))
    link = page.locator("a.staff-link").get_attribute("href") or ""
    qr = page.locator("#staff-link .qr svg")
    decoded = [r.text for r in zxingcpp.read_barcodes(Image.open(io.BytesIO(qr.screenshot())))]
    assert decoded == [link]
    # the answer shown once became the console's own address: a reload names nobody twice
    assert urlsplit(page.url).path.startswith("/console/e/")
    return link


def _organizer_forms(page: Any) -> list[str]:
    actions = [
        page.locator("form").nth(i).get_attribute("action") or "" for i in range(page.locator("form").count())
    ]
    return [a for a in actions if a.endswith(ORGANIZER_ONLY) or "/rounds/" in a and a.endswith("/undo")]


def test_staff_sign_in_with_their_links_and_act_within_their_roles(
    event: dict[str, Any], browser: Any
) -> None:
    base, eid = event["base"], event["id"]
    client = api(base)
    org = bearer(event["token"])
    desk = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = desk.new_page()
    page.goto(f"{base}/console")
    page.fill("#org-token", event["token"])
    submit(page, page.get_by_role("button", name="Sign in"))

    keeper_link = _issue(page, "Sam Keeper", "scorekeeper")
    shot(page, "staff-link-shown-once")
    page.reload()
    assert page.locator("a.staff-link").count() == 0  # shown once
    judge_link = _issue(page, "Jo Judge", "judge")
    assert urlsplit(keeper_link).path == "/console" and urlsplit(keeper_link).fragment.startswith("token=")
    staff = {m["name"]: m for m in items(client.get(f"/v1/events/{eid}/staff", headers=org).json())}
    assert {m["role"] for m in staff.values()} == {"scorekeeper", "judge"}
    page.goto(f"{base}/console/e/{eid}")
    assert page.locator("#staff tr.staff-member").count() == 2

    # the scorekeeper, on a phone: the link signs in to this event's console
    keeper_ctx = browser.new_context(**PHONE)
    keeper = keeper_ctx.new_page()
    keeper.goto(keeper_link)
    keeper.wait_for_url(f"{base}/console/e/{eid}")
    assert "token=" not in keeper.url
    assert "Sam Keeper, scorekeeper" in keeper.inner_text("#signed-in-as")
    assert _organizer_forms(keeper) == []
    for name in ("Pair the next round", "Advance", "Rename", "Start the event"):
        assert keeper.get_by_role("button", name=name).count() == 0
    assert keeper.get_by_role("button", name="Drop Aiko").count() == 0
    assert keeper.locator("#staff").count() == 0
    shot(keeper, "staff-scorekeeper-phone")

    # records a result with a tap; the audit trail names the scorekeeper
    rnd = client.get(f"/v1/events/{eid}/rounds/1").json()
    m = next(x for x in rnd["matches"] if x["status"] == "pending")
    row = keeper.locator(f"#m-{m['id']}")
    winner = row.locator("button[value='seat:0']")
    submit(keeper, winner)
    recorded = client.get(f"/v1/matches/{m['id']}").json()
    assert recorded["status"] == "confirmed"
    actors = {h["actor"] for h in recorded["history"] or []}
    assert f"staff:{staff['Sam Keeper']['id']}" in actors, recorded["history"]

    # a forged form is refused before anything runs, whatever the form's token
    csrf = keeper.locator("input[name=csrf]").first.get_attribute("value")
    for forged in (
        "/advance",
        "/pair",
        "/rounds/1/undo",
        f"/entries/{m['seats'][1]['entry_id']}/drop",
        "/staff",
    ):
        answer = keeper_ctx.request.post(
            f"{base}/console/e/{eid}{forged}", form={"csrf": csrf or "", "member": "x", "role": "judge"}
        )
        assert answer.status == 403, (forged, answer.status)
        assert "scorekeeper may not do this" in answer.text()
    assert client.get(f"/v1/events/{eid}").json()["status"] == "running"
    assert len(items(client.get(f"/v1/events/{eid}/rounds").json())) == 1
    assert all(e["status"] == "active" for e in items(client.get(f"/v1/events/{eid}/entries").json()))
    assert len(items(client.get(f"/v1/events/{eid}/staff", headers=org).json())) == 2

    # the judge, on another phone: drops a player and swaps two seats, and still may not advance
    judge_ctx = browser.new_context(**PHONE)
    judge = judge_ctx.new_page()
    judge.goto(judge_link)
    judge.wait_for_url(f"{base}/console/e/{eid}")
    assert "Jo Judge, judge" in judge.inner_text("#signed-in-as")
    assert judge.get_by_role("button", name="Advance").count() == 0
    pending = [
        x for x in client.get(f"/v1/events/{eid}/rounds/1").json()["matches"] if x["status"] == "pending"
    ]
    names = {e["id"]: e["name"] for e in items(client.get(f"/v1/events/{eid}/entries").json())}
    a, b = pending[0]["seats"][0]["entry_id"], pending[1]["seats"][0]["entry_id"]
    judge.locator("#round summary", has_text="Swap two entries").click()
    judge.select_option("#swap-a", a)
    judge.select_option("#swap-b", b)
    submit(judge, judge.locator("#round form[action$='/swap'] button"))
    swapped = client.get(f"/v1/matches/{pending[0]['id']}").json()
    assert b in {s["entry_id"] for s in swapped["seats"]}
    dropped = names[pending[1]["seats"][1]["entry_id"]]
    submit(judge, judge.get_by_role("button", name=f"Drop {dropped}"))
    entry = next(e for e in items(client.get(f"/v1/events/{eid}/entries").json()) if e["name"] == dropped)
    assert entry["status"] == "dropped"
    assert judge_ctx.request.post(f"{base}/console/e/{eid}/advance", form={"csrf": csrf or ""}).status == 403
    judge_id = staff["Jo Judge"]["id"]
    history = items(client.get(f"/v1/events/{eid}/history").json())
    assert any(h["actor"] == f"staff:{judge_id}" and "swap" in h["action"] for h in history), history
    shot(judge, "staff-judge-phone")

    # the organizer revokes the scorekeeper with the keyboard alone
    page.reload()
    revoke = page.get_by_role("button", name="Revoke Sam Keeper")
    page.locator("#staff-role").focus()
    for _ in range(10):
        page.keyboard.press("Tab")
        if revoke.evaluate("b => b === document.activeElement"):
            break
    assert revoke.evaluate("b => b === document.activeElement")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.get_by_role("button", name="Revoke Sam Keeper").count() == 0
    assert "revoked" in page.locator("#staff tr.staff-member").first.inner_text()
    assert page.get_by_role("button", name="Revoke Jo Judge").count() == 1

    # the link stops working: the signed-in phone is signed out, the link opens no console
    keeper.reload()
    assert keeper.locator("#org-token").count() == 1 and keeper.locator("#signed-in-as").count() == 0
    again = browser.new_context(**PHONE).new_page()
    again.goto(keeper_link)
    again.wait_for_url(f"{base}/console?preset=generic#h-signin")  # refused: post/redirect/get
    assert again.locator("#org-token").count() == 1
    assert "token" in again.inner_text("main").lower()
    assert (
        keeper_ctx.request.post(
            f"{base}/console/e/{eid}/matches/{m['id']}/confirm", form={"csrf": csrf or ""}
        ).status
        == 401
    )
    judge.reload()
    assert "Jo Judge, judge" in judge.inner_text("#signed-in-as")
    for ctx in (desk, keeper_ctx, judge_ctx, again.context):
        ctx.close()
