// The player's page: the entry token lives in the URL fragment (never sent to the server in a URL)
// and in this browser's storage; it goes to the server only as the bearer header.
(function () {
  "use strict";
  var box = document.getElementById("me");
  if (!box) return;
  var eventId = box.getAttribute("data-event");
  var matchId = box.getAttribute("data-match");
  var key = "arbiter:entry:" + eventId;
  var form = document.getElementById("token-form");
  var m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) { try { localStorage.setItem(key, decodeURIComponent(m[1])); } catch (e) { /* private mode */ } }
  function token() {
    if (m) return decodeURIComponent(m[1]);
    try { return localStorage.getItem(key); } catch (e) { return null; }
  }
  function say(text) {
    var p = document.getElementById("me-status");
    p.textContent = text; p.hidden = false;
  }
  function load() {
    var t = token();
    if (!t) { form.hidden = false; return; }
    form.hidden = true;
    fetch("/e/" + eventId + "/me/view" + (matchId ? "?match=" + encodeURIComponent(matchId) : ""), {
      headers: { Authorization: "Bearer " + t, Accept: "text/html" }
    }).then(function (r) {
      if (r.status === 401 || r.status === 403) { try { localStorage.removeItem(key); } catch (e) {} m = null; form.hidden = false; return null; }
      return r.text();
    }).then(function (html) { if (html !== null && html !== undefined) box.innerHTML = html; });
  }
  // a refusal speaks of the table's players by name, never by their ids
  function named(text, matchId) {
    var card = document.getElementById("m-" + matchId), names = {};
    try { names = JSON.parse((card && card.getAttribute("data-names")) || "{}"); } catch (e) {}
    Object.keys(names).forEach(function (id) { text = text.split(id).join(names[id]); });
    return text;
  }
  box.addEventListener("click", function (ev) {
    var b = ev.target.closest("button.report");
    if (!b) return;
    b.disabled = true;
    fetch("/v1/matches/" + b.getAttribute("data-match") + "/result", {
      method: "POST",
      headers: { Authorization: "Bearer " + token(), "Content-Type": "application/json" },
      body: b.getAttribute("data-body")
    }).then(function (r) {
      return r.json().then(function (j) {
        say(r.ok ? box.getAttribute("data-msg-sent") : box.getAttribute("data-msg-failed") + " " + named(j.detail || "", b.getAttribute("data-match")));
        load();
      });
    });
  });
  // a table of three or more: each seat's place, sent as the form it is (the server builds the body)
  box.addEventListener("submit", function (ev) {
    var f = ev.target.closest("form[data-player-places]");
    if (!f) return;
    ev.preventDefault();
    var id = f.getAttribute("data-match");
    fetch(f.getAttribute("action"), {
      method: "POST",
      headers: { Authorization: "Bearer " + token() },
      body: new URLSearchParams(new FormData(f))
    }).then(function (r) {
      return r.json().then(function (j) {
        if (r.ok) { say(box.getAttribute("data-msg-sent")); load(); }
        else say(box.getAttribute("data-msg-failed") + " " + named(j.detail || "", id));  // the choice stays
      });
    });
  });
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var v = document.getElementById("token").value.trim();
    if (!v) return;
    try { localStorage.setItem(key, v); } catch (e) {}
    m = [null, encodeURIComponent(v)];
    load();
  });
  if (window.EventSource) {
    var s = new EventSource(box.getAttribute("data-stream"));
    var timer = null;
    // places being chosen are not redrawn away: the refresh waits while the form has the focus
    var later = function () {
      var a = document.activeElement;
      if (a && box.contains(a) && a.tagName === "INPUT") { timer = setTimeout(later, 1000); return; }
      timer = null; load();
    };
    (box.getAttribute("data-types") || "").split(",").forEach(function (type) {
      if (type) s.addEventListener(type, function () { if (!timer) timer = setTimeout(later, 300); });
    });
  }
  load();
})();
