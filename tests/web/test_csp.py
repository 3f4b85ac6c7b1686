"""The pages under their Content-Security-Policy, in Chromium: every main page (public, player,
console, projector, printed sheets, /docs) does its work with the policy on — its scripts run, its
stream connects, its styles apply — and the browser reports no violation, while an inline script
slipped into a page is refused (the policy is really enforced)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.conftest import ADMIN, api, bearer, items, shot

# Before any script of the page: record every violation the browser reports, and every print.
WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__violations.push(e.violatedDirective + " " + (e.blockedURI || "inline") + " " + e.sourceFile + ":" + e.lineNumber);
});
window.__printed = 0;
window.print = function () { window.__printed += 1; };
"""


@pytest.fixture(scope="module")
def event(server: str) -> dict[str, Any]:
    client = api(server)
    made = client.post(
        "/v1/events",
        json={
            "name": "Policy Open",
            "game": "generic",
            "settings": {"stages": [{"format": "swiss", "rounds": 2}]},
        },
        headers=bearer(ADMIN),
    )
    assert made.status_code == 201, made.text
    ev = made.json()
    org = bearer(ev["organizer_token"])
    rows = [{"name": n} for n in ("Ada", "Brian", "Chen", "Dora")]
    entries = items(client.post(f"/v1/events/{ev['id']}/entries", json=rows, headers=org).json())
    started = client.post(f"/v1/events/{ev['id']}/start", headers=org)
    assert started.status_code == 200, started.text
    match = started.json()["round"]["matches"][0]
    tokens = {e["id"]: e["entry_token"] for e in entries}
    return {
        "id": ev["id"],
        "organizer": ev["organizer_token"],
        "match": match["id"],
        "player": tokens[match["seats"][0]["entry_id"]],
    }


class Watched:
    """A page whose console messages, uncaught errors and policy violations are kept."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context(locale="en-US")
        self.context.add_init_script(WATCH)
        self.page = self.context.new_page()
        self.console: list[str] = []
        self.errors: list[str] = []
        self.page.on(
            "console", lambda m: self.console.append(f"{m.type}: {m.text} ({m.location.get('url')})")
        )
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def open(self, url: str) -> Any:
        answer = self.page.goto(url)
        assert answer is not None and answer.status == 200, url
        assert "script-src 'self'" in answer.headers["content-security-policy"], url
        return self.page

    def check(self, where: str) -> None:
        violations = self.page.evaluate("window.__violations")
        policy = [m for m in self.console if "Content Security Policy" in m or "Refused to" in m]
        assert violations == [] and policy == [], (where, violations, policy)
        assert self.errors == [], (where, self.errors)
        # the one error a page may log: the browser's own ask for /favicon.ico, which none declares
        assert [m for m in self.console if m.startswith("error") and "/favicon.ico" not in m] == [], where


def test_the_main_pages_work_under_their_policy(server: str, browser: Any, event: dict[str, Any]) -> None:
    w = Watched(browser)
    eid = event["id"]
    page = w.open(f"{server}/")
    assert "Policy Open" in page.inner_text("main")
    w.check("/")

    page = w.open(f"{server}/e/{eid}")
    page.wait_for_selector("[data-live-label]:has-text('updates itself')")  # live.js and its stream
    w.check("/e/{id}")

    page = w.open(f"{server}/e/{eid}/me#token={event['player']}")
    page.wait_for_selector(f"#m-{event['match']}")  # player.js fetched the player's part
    w.check("/e/{id}/me")

    page = w.open(f"{server}/e/{eid}/m/{event['match']}")  # the token kept by the player's page
    page.wait_for_selector("button:has-text('won')")
    w.check("/e/{id}/m/{match}")

    with w.page.expect_request(lambda r: "/stream" in r.url):  # live.js opened the event's stream
        page = w.open(f"{server}/e/{eid}/projector?every=2")
    assert page.evaluate("getComputedStyle(document.body).overflow") == "hidden"  # site.css applies
    shot(page, "csp-projector")
    w.check("/e/{id}/projector")

    for sheet in ("pairings", "slips", "scorecards"):
        page = w.open(f"{server}/e/{eid}/print/{sheet}?paper=a4")
        size = page.evaluate(
            "[...document.styleSheets].flatMap(s => [...s.cssRules]).map(r => r.cssText)"
            ".filter(t => t.startsWith('@page')).join(' ')"
        )
        assert "size: A4" in size or "size: a4" in size.lower(), size
        page.get_by_role("button", name="Print").click()
        assert page.evaluate("window.__printed") == 1  # print.js, not an inline onclick
        w.check(f"/e/{{id}}/print/{sheet}")

    page = w.open(f"{server}/console")
    page.fill("#org-token", event["organizer"])
    with page.expect_request(lambda r: "/stream" in r.url):  # the console's live.js
        page.get_by_role("button", name="Sign in", exact=True).click()
        page.wait_for_url(f"**/console/e/{eid}")
    page.wait_for_selector("#live")
    shot(page, "csp-console")
    w.check("/console/e/{id}")

    page = w.open(f"{server}/docs")
    page.wait_for_selector(".swagger-ui .info .title")
    page.wait_for_selector(".opblock")  # Swagger UI started by docs.js and read /openapi.json
    w.check("/docs")
    print(f"console messages over the pages: {w.console}; policy violations: 0")
    w.context.close()


def test_an_inline_script_is_refused(server: str, browser: Any, event: dict[str, Any]) -> None:
    """The control: the watch sees a violation when there is one, and the inline code never runs."""
    w = Watched(browser)
    page = w.open(f"{server}/e/{event['id']}")
    page.evaluate(
        "() => { const s = document.createElement('script'); s.textContent = 'window.__ran = 1';"
        " document.body.appendChild(s);"
        " const d = document.createElement('div'); d.innerHTML = '<img src=x onerror=\"window.__ran = 2\">';"
        " document.body.appendChild(d); }"
    )
    page.wait_for_function("() => window.__violations.length >= 1")
    assert page.evaluate("window.__ran") is None
    assert any(v.startswith("script-src") for v in page.evaluate("window.__violations"))
    w.context.close()
