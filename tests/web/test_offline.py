"""Results that survive bad Wi-Fi (docs/web.md "Offline results"), in Chromium on both backends: a
result entered on the player's page or a slip's report page with the browser offline is kept,
shown as waiting to send, still there after a reload offline (the page itself from the service
worker's copy), and sent exactly once — with the Idempotency-Key it was given when entered — by a
new page opened once the connection is back; a table the organizer recorded meanwhile is shown as
a conflict in words. Each run prints its timeline (ms since going offline)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.web.conftest import ADMIN, api, bearer, items, shot

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def _event(server: str, name: str) -> dict[str, Any]:
    client = api(server)
    made = client.post(
        "/v1/events",
        json={"name": name, "game": "generic", "settings": {"stages": [{"format": "swiss", "rounds": 2}]}},
        headers=bearer(ADMIN),
    )
    assert made.status_code == 201, made.text
    event = made.json()
    org = bearer(event["organizer_token"])
    rows = [{"name": n} for n in ("Ada", "Grace", "Alan", "Barbara")]
    entries = items(client.post(f"/v1/events/{event['id']}/entries", json=rows, headers=org).json())
    started = client.post(f"/v1/events/{event['id']}/start", headers=org)
    assert started.status_code == 200, started.text
    match = started.json()["round"]["matches"][0]
    seats = sorted(match["seats"], key=lambda s: s["seat"])
    token = {e["id"]: e["entry_token"] for e in entries}
    name = {e["id"]: e["name"] for e in entries}
    return {
        "id": event["id"],
        "org": org,
        "match": match["id"],
        "me": seats[0]["entry_id"],
        "token": token[seats[0]["entry_id"]],
        "other": name[seats[1]["entry_id"]],
        "other_id": seats[1]["entry_id"],
    }


def _history(server: str, match_id: str) -> list[dict[str, Any]]:
    got = api(server).get(f"/v1/matches/{match_id}")
    assert got.status_code == 200, got.text
    return list(got.json()["history"])


class Timeline:
    def __init__(self) -> None:
        self.start = time.monotonic()
        self.marks: list[tuple[str, int]] = []

    def mark(self, what: str) -> None:
        self.marks.append((what, round((time.monotonic() - self.start) * 1000)))

    def __str__(self) -> str:
        return " → ".join(f"{what} {ms} ms" for what, ms in self.marks)


def _backend(request: pytest.FixtureRequest) -> str:
    return str(request.node.callspec.params["hall_server"])


def _posts(context: Any) -> list[Any]:
    """The result POSTs that reached the server (a try made offline fails in the browser)."""
    sent: list[Any] = []
    context.on(
        "requestfinished",
        lambda r: sent.append(r) if r.method == "POST" and r.url.endswith("/result") else None,
    )
    return sent


def _ready(page: Any) -> None:
    """The page's copy is kept by the service worker (the first visit, online)."""
    page.wait_for_selector("html[data-offline-ready]", state="attached")


@pytest.mark.parametrize(("kind", "where"), [("win", "me"), ("draw", "slip")])
def test_a_result_entered_offline_is_kept_and_sent_once(
    hall_server: str, browser: Any, kind: str, where: str, request: pytest.FixtureRequest
) -> None:
    server = hall_server
    ev = _event(server, f"Bad Wi-Fi {kind}")
    path = f"/e/{ev['id']}/me" if where == "me" else f"/e/{ev['id']}/m/{ev['match']}"
    context = browser.new_context(**PHONE, locale="en-US")
    posts = _posts(context)
    page = context.new_page()
    page.goto(f"{server}{path}#token={ev['token']}")
    card = page.locator(f"#m-{ev['match']}")
    button = card.get_by_role("button", name="I won" if kind == "win" else "Draw", exact=True)
    button.wait_for()
    _ready(page)

    clock = Timeline()
    context.set_offline(True)
    clock.mark("offline")
    button.click()
    waiting = page.locator("#outbox-list li.outbox-waiting")
    waiting.wait_for()
    clock.mark("entered")
    said = waiting.inner_text()
    assert "Waiting to send:" in said and ("I won" if kind == "win" else "Draw") in said, said
    assert "no connection" in said, said
    assert _history(server, ev["match"]) == []  # nothing reached the server

    reloaded = page.reload()
    assert reloaded is not None and reloaded.from_service_worker  # the kept copy of the page
    # and truly offline behind the worker too: a file it never kept cannot be fetched
    probe = "fetch('/static/web/site.css?never-kept').then(r => r.status, () => 'failed')"
    assert page.evaluate(probe) == "failed"
    page.locator("#outbox-list li.outbox-waiting").wait_for()
    card.get_by_role("button", name="Draw").wait_for()  # the player's part as last seen
    assert "No connection" in page.inner_text("#me-stale")
    clock.mark("reloaded offline")
    shot(page, f"offline-waiting-{kind}")
    page.close()
    assert _history(server, ev["match"]) == []

    context.set_offline(False)
    clock.mark("online")
    again = context.new_page()
    again.goto(f"{server}{path}")  # no token in the address: this browser kept it
    again.wait_for_selector("#me-status:has-text('Your report was sent.')")
    clock.mark("sent")
    again.locator("#outbox").wait_for(state="hidden")
    print(f"\noffline timeline ({kind} on {where}, {_backend(request)}): {clock}")

    claims = [h for h in _history(server, ev["match"]) if h["action"] == "claim"]
    assert len(claims) == 1, claims
    assert len(posts) == 1, [p.url for p in posts]  # one try reached the server
    sent = posts[0]
    key = sent.headers.get("idempotency-key")
    assert key and sent.response() is not None and sent.response().status == 200
    body = sent.post_data
    assert json.loads(body).get("outcome", "played") == ("draw" if kind == "draw" else "played")
    replay = api(server).post(
        f"/v1/matches/{ev['match']}/result",
        content=body,
        headers={**bearer(ev["token"]), "Idempotency-Key": key, "Content-Type": "application/json"},
    )
    assert replay.status_code == 200 and replay.headers.get("Idempotent-Replayed") == "true", replay.text
    assert [h for h in _history(server, ev["match"]) if h["action"] == "claim"] == claims
    context.close()


def test_a_table_recorded_meanwhile_is_a_conflict_in_words(
    hall_server: str, browser: Any, request: pytest.FixtureRequest
) -> None:
    server = hall_server
    ev = _event(server, "Bad Wi-Fi conflict")
    context = browser.new_context(**PHONE, locale="en-US")
    page = context.new_page()
    page.goto(f"{server}/e/{ev['id']}/me#token={ev['token']}")
    card = page.locator(f"#m-{ev['match']}")
    card.get_by_role("button", name="I won").wait_for()
    _ready(page)

    clock = Timeline()
    context.set_offline(True)
    clock.mark("offline")
    card.get_by_role("button", name="I won").click()
    page.locator("#outbox-list li.outbox-waiting").wait_for()
    clock.mark("entered")
    # meanwhile the organizer records the other seat's win
    recorded = api(server).post(
        f"/v1/matches/{ev['match']}/result",
        json={"seats": [{"entry_id": ev["other_id"], "place": 1}, {"entry_id": ev["me"], "place": 2}]},
        headers=ev["org"],
    )
    assert recorded.status_code == 200, recorded.text
    clock.mark("organizer recorded")
    context.set_offline(False)
    clock.mark("online")
    conflict = page.locator("#outbox-list li.outbox-conflict")
    conflict.wait_for()
    clock.mark("conflict shown")
    print(f"\noffline timeline (conflict, {_backend(request)}): {clock}")
    said = conflict.inner_text()
    assert (
        "Not sent:" in said and "The organizer recorded this table's result while yours was waiting" in said
    ), said
    assert "I won" in said, said
    card.wait_for(state="detached")  # the page refreshed: the table is recorded, no buttons
    shot(page, "offline-conflict")
    history = _history(server, ev["match"])
    assert [h["action"] for h in history] == ["report"], history  # the player's result never counted
    conflict.get_by_role("button", name="Understood").click()
    page.locator("#outbox").wait_for(state="hidden")
    page.reload()  # dismissed for good; the table is recorded, so it has no buttons any more
    page.locator("#h-hist").wait_for()
    assert card.count() == 0 and page.locator("#outbox").is_hidden()
    context.close()


def test_an_answer_lost_on_the_way_back_is_replayed_not_recorded_twice(
    hall_server: str, browser: Any
) -> None:
    """Wi-Fi that drops after the result reached the server: the phone never hears the answer,
    tries again with the same key, and the API replays the first answer."""
    server = hall_server
    ev = _event(server, "Bad Wi-Fi lost answer")
    context = browser.new_context(**PHONE, locale="en-US")
    page = context.new_page()
    page.goto(f"{server}/e/{ev['id']}/me#token={ev['token']}")
    card = page.locator(f"#m-{ev['match']}")
    card.get_by_role("button", name="I won").wait_for()
    tries: list[tuple[str | None, bool]] = []

    def drop_first_answer(route: Any) -> None:
        answer = route.fetch()  # the server gets it and answers ...
        tries.append(
            (
                route.request.headers.get("idempotency-key"),
                answer.headers.get("idempotent-replayed") == "true",
            )
        )
        if len(tries) == 1:
            route.abort("connectionreset")  # ... and the answer is lost on the way back
        else:
            route.fulfill(response=answer)

    page.route("**/v1/matches/*/result", drop_first_answer)
    card.get_by_role("button", name="I won").click()
    page.wait_for_selector("#me-status:has-text('Your report was sent.')")
    assert len(tries) == 2 and tries[0][0] and tries[0][0] == tries[1][0], tries
    assert tries[1][1], tries  # the second try was a replay
    claims = [h for h in _history(server, ev["match"]) if h["action"] == "claim"]
    assert len(claims) == 1, claims
    context.close()


def test_places_at_a_table_of_four_are_kept_offline_and_sent_once(
    hall_server: str, browser: Any, request: pytest.FixtureRequest
) -> None:
    """The places form of a table of three or more goes through the same outbox as the buttons:
    checked in words before it is kept, kept offline, sent once to the API with its key."""
    server = hall_server
    client = api(server)
    made = client.post(
        "/v1/events",
        json={
            "name": "Bad Wi-Fi at four",
            "game": "generic",
            "settings": {"stages": [{"format": "swiss", "table_size": 4, "rounds": 1}]},
        },
        headers=bearer(ADMIN),
    )
    assert made.status_code == 201, made.text
    event = made.json()
    org = bearer(event["organizer_token"])
    rows = [{"name": n} for n in ("Hana", "Ichiro", "Jun", "Kaori")]
    entries = items(client.post(f"/v1/events/{event['id']}/entries", json=rows, headers=org).json())
    match = client.post(f"/v1/events/{event['id']}/start", headers=org).json()["round"]["matches"][0]
    by_seat = sorted(match["seats"], key=lambda s: s["seat"])
    name = {e["id"]: e["name"] for e in entries}
    token = {e["id"]: e["entry_token"] for e in entries}[by_seat[0]["entry_id"]]
    context = browser.new_context(**PHONE, locale="en-US")
    posts = _posts(context)
    page = context.new_page()
    page.goto(f"{server}/e/{event['id']}/me#token={token}")
    card = page.locator(f"#m-{match['id']}")
    send = card.get_by_role("button", name="Report these places")
    send.wait_for()
    _ready(page)

    def choose(places: tuple[int | None, ...]) -> None:
        for s, place in zip(by_seat, places, strict=True):
            if place is not None:
                card.get_by_label(f"{name[s['entry_id']]}: {place}.", exact=True).check()

    clock = Timeline()
    context.set_offline(True)
    clock.mark("offline")
    # refused in words before anything is kept: a seat left out, then places out of form
    choose((2, 1, 3, None))
    send.click()
    page.wait_for_selector("#me-status:has-text('The report was refused:')")
    said = page.inner_text("#me-status")
    assert f"no place for {name[by_seat[3]['entry_id']]}" in said, said
    assert card.get_by_label(f"{name[by_seat[0]['entry_id']]}: 2.", exact=True).is_checked()  # kept
    choose((2, 2, 3, 4))
    send.click()
    page.wait_for_selector("#me-status:has-text('not in competition form')")
    said = page.inner_text("#me-status")
    assert "no seat is placed 1st" in said and name[by_seat[0]["entry_id"]] in said, said
    assert page.locator("#outbox").is_hidden()  # nothing kept
    clock.mark("refused in words")

    places = (2, 1, 3, 3)  # a tie for third
    choose(places)
    send.click()
    waiting = page.locator("#outbox-list li.outbox-waiting")
    waiting.wait_for()
    clock.mark("entered")
    said = waiting.inner_text()
    first = name[by_seat[1]["entry_id"]]
    assert "Waiting to send:" in said and "no connection" in said and f"1. {first}" in said, said

    reloaded = page.reload()
    assert reloaded is not None and reloaded.from_service_worker
    page.locator("#outbox-list li.outbox-waiting").wait_for()
    card.get_by_role("button", name="Report these places").wait_for()  # the part as last seen
    assert "No connection" in page.inner_text("#me-stale")
    clock.mark("reloaded offline")
    shot(page, "offline-waiting-places")
    page.close()
    assert _history(server, match["id"]) == []
    assert posts == []  # neither the API nor the page route was reached

    context.set_offline(False)
    clock.mark("online")
    again = context.new_page()
    again.goto(f"{server}/e/{event['id']}/me")
    again.wait_for_selector("#me-status:has-text('Your report was sent.')")
    clock.mark("sent")
    again.locator("#outbox").wait_for(state="hidden")
    print(f"\noffline timeline (places at four, {_backend(request)}): {clock}")

    history = _history(server, match["id"])
    claims = [h for h in history if h["action"] in ("claim", "report")]
    assert len(claims) == 1 and claims[0]["action"] == "claim", history
    assert len(posts) == 1 and posts[0].url == f"{server}/v1/matches/{match['id']}/result", posts
    sent = posts[0]
    key = sent.headers.get("idempotency-key")
    assert key and sent.response() is not None and sent.response().status == 200
    body = json.loads(sent.post_data)
    assert body == {
        "seats": [{"entry_id": s["entry_id"], "place": p} for s, p in zip(by_seat, places, strict=True)]
    }
    got = client.get(f"/v1/matches/{match['id']}").json()
    claimed = {s["entry_id"]: s["place"] for s in claims[0]["payload"]["seats"]}
    assert [claimed[s["entry_id"]] for s in by_seat] == list(places), claims
    assert got["status"] != "confirmed"  # one seat's claim; the others still confirm it
    context.close()


def test_places_the_server_refuses_after_sending_are_shown_in_words(
    hall_server: str, browser: Any, request: pytest.FixtureRequest
) -> None:
    """What the page cannot check itself: the table changed while the places waited (a seat
    swapped with another table's), so the API refuses them (422) and the page says why, in names."""
    server = hall_server
    client = api(server)
    event = client.post(
        "/v1/events",
        json={
            "name": "Bad Wi-Fi, a seat swapped",
            "game": "generic",
            "settings": {"stages": [{"format": "swiss", "table_size": 4, "rounds": 1}]},
        },
        headers=bearer(ADMIN),
    ).json()
    org = bearer(event["organizer_token"])
    rows = [{"name": n} for n in ("Hana", "Ichiro", "Jun", "Kaori", "Lena", "Mio", "Nao", "Oki")]
    entries = items(client.post(f"/v1/events/{event['id']}/entries", json=rows, headers=org).json())
    first, second = client.post(f"/v1/events/{event['id']}/start", headers=org).json()["round"]["matches"]
    by_seat = sorted(first["seats"], key=lambda s: s["seat"])
    name = {e["id"]: e["name"] for e in entries}
    token = {e["id"]: e["entry_token"] for e in entries}[by_seat[0]["entry_id"]]
    context = browser.new_context(**PHONE, locale="en-US")
    page = context.new_page()
    page.goto(f"{server}/e/{event['id']}/me#token={token}")
    card = page.locator(f"#m-{first['id']}")
    card.get_by_role("button", name="Report these places").wait_for()
    _ready(page)

    clock = Timeline()
    context.set_offline(True)
    clock.mark("offline")
    for s, place in zip(by_seat, (1, 2, 3, 4), strict=True):
        card.get_by_label(f"{name[s['entry_id']]}: {place}.", exact=True).check()
    card.get_by_role("button", name="Report these places").click()
    page.locator("#outbox-list li.outbox-waiting").wait_for()
    clock.mark("entered")
    moved = by_seat[3]["entry_id"]
    swapped = client.post(
        f"/v1/events/{event['id']}/rounds/1/swap",
        json={"entries": [moved, second["seats"][0]["entry_id"]]},
        headers=org,
    )
    assert swapped.status_code == 200, swapped.text
    clock.mark("seat swapped")
    context.set_offline(False)
    clock.mark("online")
    refused = page.locator("#outbox-list li.outbox-refused")
    refused.wait_for()
    clock.mark("refusal shown")
    print(f"\noffline timeline (places refused by the server, {_backend(request)}): {clock}")
    said = refused.inner_text()
    assert "Not sent:" in said and "The report was refused:" in said, said
    assert f"{name[moved]} is not at this table" in said and moved not in said, said
    assert _history(server, first["id"]) == []  # nothing recorded
    refused.get_by_role("button", name="Understood").click()
    page.locator("#outbox").wait_for(state="hidden")
    context.close()
