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
  var offline = window.ArbiterOffline || null;
  var words = document.getElementById("outbox"), list = document.getElementById("outbox-list");
  var stale = document.getElementById("me-stale");
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
  // the player's part; without a connection, the copy last seen (static/offline.js keeps it)
  var deckSize = "";  // a Rite of Command deal's cards a player, as last asked on this page
  function load() {
    var t = token();
    if (!t) { form.hidden = false; return; }
    form.hidden = true;
    var query = [];
    if (matchId) query.push("match=" + encodeURIComponent(matchId));
    if (deckSize) query.push("deck_size=" + encodeURIComponent(deckSize));
    fetch("/e/" + eventId + "/me/view" + (query.length ? "?" + query.join("&") : ""), {
      headers: { Authorization: "Bearer " + t, Accept: "text/html" }
    }).then(function (r) {
      if (r.status === 401 || r.status === 403) { try { localStorage.removeItem(key); } catch (e) {} m = null; form.hidden = false; return null; }
      return r.text().then(function (html) {
        // places chosen and not yet recorded stay chosen across a refresh, and what is typed in a
        // form kept open (a BGA table: [data-keep]) stays typed, its box open
        var chosen = [].map.call(box.querySelectorAll("form[data-player-places] input:checked"), function (el) { return el.id; });
        var kept = [].map.call(box.querySelectorAll("[data-keep] input[id]"), function (el) { return [el.id, el.type === "checkbox" ? el.checked : el.value]; });
        var opened = [].map.call(box.querySelectorAll("details[data-keep][open]"), function (el) { return el.id; });
        box.innerHTML = html; stale.hidden = true;
        chosen.forEach(function (id) { var el = document.getElementById(id); if (el) el.checked = true; });
        kept.forEach(function (k) {
          var el = document.getElementById(k[0]);
          if (!el) return;
          if (el.type === "checkbox") el.checked = k[1]; else el.value = k[1];
        });
        opened.forEach(function (id) { var el = document.getElementById(id); if (el) el.open = true; });
        if (offline && r.ok) offline.saveView(eventId, html);
        return null;
      });
    }).catch(function () {
      if (!offline) return;
      offline.lastView(eventId).then(function (seen) {
        if (!seen || box.innerHTML.trim()) return;  // a page already shown stays as it is
        box.innerHTML = seen.html;
        stale.textContent = words.getAttribute("data-stale").split("{time}").join(new Date(seen.at).toLocaleTimeString());
        stale.hidden = false;
      });
    });
  }
  // a refusal speaks of the table's players by name, never by their ids
  function named(text, matchId, kept) {
    var card = document.getElementById("m-" + matchId), names = {};
    try { names = JSON.parse(kept || (card && card.getAttribute("data-names")) || "{}"); } catch (e) {}
    Object.keys(names).forEach(function (id) { text = text.split(id).join(names[id]); });
    return text;
  }
  // a result pressed is first kept in this browser with its own Idempotency-Key, then sent: at
  // once when there is a connection, else when it returns (this page or the next one opened)
  box.addEventListener("click", function (ev) {
    var b = ev.target.closest("button.report");
    if (!b) return;
    enter(b.getAttribute("data-match"), b.getAttribute("data-body"), b.textContent, b);
  });
  function enter(id, body, what, b) {
    var card = document.getElementById("m-" + id);
    var where = card && card.querySelector(".big");
    var record = {
      key: offline ? offline.newKey() : String(Date.now()), event: eventId, match: id, token: token(),
      body: body, names: (card && card.getAttribute("data-names")) || "{}",
      label: ((where ? where.textContent + " — " : "") + what).replace(/\s+/g, " ").trim(),
      entered: Date.now(), state: "waiting"
    };
    b.disabled = true;
    if (!offline) { send(record).then(function () { b.disabled = false; load(); }); return; }
    // a second choice for the same table, not sent yet, replaces the first
    offline.list(eventId).then(function (all) {
      return Promise.all(all.filter(function (r) { return r.match === id && r.state === "waiting"; })
        .map(function (r) { return offline.remove(r.key); }));
    }).then(function () { return offline.put(record); }).then(function () {
      b.disabled = false;
      show();
      flush();
    });
  }

  // one try of one result: "sent", "retry" (no connection, or the server could not answer now),
  // or the record marked "conflict" (the table was recorded by the organizer meanwhile) or
  // "refused" (any other refusal), with the server's reason in the table's names
  function send(record) {
    return fetch("/v1/matches/" + record.match + "/result", {
      method: "POST",
      headers: { Authorization: "Bearer " + record.token, "Content-Type": "application/json", "Idempotency-Key": record.key },
      body: record.body
    }).then(function (r) {
      if (r.status >= 500 || r.status === 429) return "retry";
      return r.json().catch(function () { return {}; }).then(function (j) {
        if (r.ok) {
          say(box.getAttribute(j.status === "disputed" ? "data-msg-disputed" : "data-msg-sent"));
          return "sent";
        }
        record.detail = named(j.detail || "", record.match, record.names);
        if (!offline) { say(box.getAttribute("data-msg-failed") + " " + record.detail); return "refused"; }
        if (r.status !== 409) { record.state = "refused"; return "refused"; }
        return fetch("/v1/matches/" + record.match, { cache: "no-store" }).then(function (mr) {
          return mr.ok ? mr.json() : {};
        }).catch(function () { return {}; }).then(function (now) {
          record.state = now.status === "confirmed" ? "conflict" : "refused";
          return record.state;
        });
      });
    }, function () { return "retry"; });
  }

  // every waiting result of this event, in the order entered; stops at the first that finds no
  // connection and tries again later (sooner when the browser says the connection is back)
  var again = null, pause = 2000;
  function flush() {
    if (!offline) return;
    offline.exclusive(function () {
      return offline.list(eventId).then(function (all) {
        var waiting = all.filter(function (r) { return r.state === "waiting"; }), changed = false;
        function next(i) {
          if (i >= waiting.length) return Promise.resolve("done");
          return send(waiting[i]).then(function (how) {
            if (how === "retry") return "retry";
            changed = true;
            var kept = how === "sent" ? offline.remove(waiting[i].key) : offline.put(waiting[i]);
            return kept.then(function () { return next(i + 1); });
          });
        }
        return next(0).then(function (how) { return { how: how, changed: changed }; });
      });
    }).then(function (res) {
      show();
      if (res.changed) load();
      clearTimeout(again);
      if (res.how === "retry") { again = setTimeout(flush, pause); pause = Math.min(pause * 2, 30000); }
      else pause = 2000;
    });
  }

  // the results kept on this phone, in words: waiting to send, or not sent and why
  function show() {
    if (!offline) return;
    offline.list(eventId).then(function (all) {
      list.textContent = "";
      all.forEach(function (r) {
        var li = document.createElement("li"), what = document.createElement("strong");
        li.className = "outbox-" + r.state;
        li.setAttribute("data-key", r.key);
        what.textContent = words.getAttribute("data-" + r.state);
        li.appendChild(what);
        li.appendChild(document.createTextNode(" " + r.label));
        if (r.state !== "waiting") {
          var why = document.createElement("p");
          why.textContent = words.getAttribute("data-" + r.state + "-why") + (r.state === "refused" ? " " + (r.detail || "") : "");
          li.appendChild(why);
          var ok = document.createElement("button");
          ok.type = "button"; ok.className = "dismiss"; ok.setAttribute("data-key", r.key);
          ok.textContent = words.getAttribute("data-dismiss");
          li.appendChild(ok);
        } else if (!navigator.onLine) {
          li.appendChild(document.createTextNode(" — " + words.getAttribute("data-waiting-why")));
        }
        list.appendChild(li);
      });
      words.hidden = all.length === 0;
    });
  }
  if (words) words.addEventListener("click", function (ev) {
    var b = ev.target.closest("button.dismiss");
    if (b) offline.remove(b.getAttribute("data-key")).then(show);
  });
  window.addEventListener("online", function () { pause = 2000; flush(); });
  window.addEventListener("offline", show);
  // a table of three or more: each seat's place, as the API's result body ({seats: [{entry_id,
  // place}]}, what the page route's forms.places_body builds from the same form), checked here
  // first in the words of the API's own refusals, then kept and sent like a pressed result
  function fill(text, values) {
    Object.keys(values).forEach(function (k) { text = text.split("{" + k + "}").join(values[k]); });
    return text;
  }
  function placesOf(f) {
    var names = {};
    try { names = JSON.parse((document.getElementById("m-" + f.getAttribute("data-match")) || f).getAttribute("data-names") || "{}"); } catch (e) {}
    var heads = f.querySelectorAll("thead th");
    var bad = null;
    var rows = [].map.call(f.querySelectorAll("tbody tr[data-entry]"), function (tr) {
      var on = tr.querySelector("input[type=radio]:checked"), id = tr.getAttribute("data-entry");
      var row = { entry_id: id, name: names[id] || id, place: on ? parseInt(on.value, 10) : null, fields: {} };
      // the scores, body points and differentials typed (a blank is left out, as the console's form)
      [].forEach.call(tr.querySelectorAll("input[data-field]"), function (el) {
        var raw = el.value.trim().replace(",", ".");
        if (!raw) return;
        var value = Number(raw);
        if (!isFinite(value)) { bad = bad || fill(f.getAttribute("data-number"), { name: row.name, field: el.closest("table").querySelectorAll("thead th")[el.closest("td").cellIndex].textContent }); return; }
        row.fields[el.getAttribute("data-field")] = value;
      });
      return row;
    });
    if (bad) return { error: bad };
    var missing = rows.filter(function (r) { return r.place === null; });
    var scored = rows.filter(function (r) { return r.fields.score !== undefined; });
    if (missing.length === rows.length && scored.length === rows.length) {  // ranked by the scores alone
      return { body: JSON.stringify({ seats: rows.map(seatOf) }), said: rows.map(function (r) { return r.name + " " + r.fields.score; }).join(", ") };
    }
    if (missing.length) {
      return { error: fill(f.getAttribute("data-missing"), { names: missing.map(function (r) { return r.name; }).join(", ") }) };
    }
    // competition form (1, 2, 2, 4 or 1, 1, 3): each place is 1 + the seats placed ahead of it
    for (var i = 0; i < rows.length; i++) {
      var ahead = rows.filter(function (r) { return r.place < rows[i].place; }).length;
      if (rows[i].place !== ahead + 1) {
        var why = ahead === 0 ? f.getAttribute("data-no-first") : fill(f.getAttribute("data-ahead"), { n: ahead, place: ahead + 1 });
        return { error: fill(f.getAttribute("data-form"), { name: rows[i].name, place: rows[i].place, why: why }) };
      }
    }
    var said = rows.slice().sort(function (a, b) { return a.place - b.place; }).map(function (r) {
      var head = heads[r.place];
      return (head ? head.textContent : r.place + ".") + " " + r.name;
    }).join(", ");
    return { body: JSON.stringify({ seats: rows.map(seatOf) }), said: said };
  }
  function seatOf(r) {
    var seat = { entry_id: r.entry_id };
    if (r.place !== null) seat.place = r.place;
    Object.keys(r.fields).forEach(function (k) { seat[k] = r.fields[k]; });
    return seat;
  }
  // a finalist's own answer on the final's rules (WBC Titan: The Arena): sent at once, then the
  // page shows the answer recorded (or the refusal, in words)
  box.addEventListener("click", function (ev) {
    var b = ev.target.closest("button.final-rules");
    if (!b) return;
    var part = document.getElementById("my-final-rules");
    b.disabled = true;
    fetch("/v1/events/" + eventId + "/titan-arena/final-rules", {
      method: "POST",
      headers: { Authorization: "Bearer " + token(), "Content-Type": "application/json" },
      body: JSON.stringify({ colossal: b.getAttribute("data-colossal") === "true" })
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) {
        say(r.ok ? part.getAttribute("data-saved") : box.getAttribute("data-msg-failed") + " " + (j.detail || r.status));
        load();
      });
    }, function () { b.disabled = false; say(box.getAttribute("data-msg-failed")); });
  });
  // a BATTLEBOOKS seat's own hero, declared before the game (POST /v1/matches/{id}/heroes): the
  // hero rule's refusal is shown in words, the book chosen stays chosen
  box.addEventListener("submit", function (ev) {
    var f = ev.target.closest("form[data-hero-form]");
    if (!f) return;
    ev.preventDefault();
    var id = f.getAttribute("data-match"), b = f.querySelector("button[type=submit]");
    b.disabled = true;
    fetch("/v1/matches/" + id + "/heroes", {
      method: "POST",
      headers: { Authorization: "Bearer " + token(), "Content-Type": "application/json" },
      body: JSON.stringify({ entry_id: f.getAttribute("data-entry"), character: f.querySelector("select").value })
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) {
        b.disabled = false;
        if (!r.ok) { say(box.getAttribute("data-msg-failed") + " " + named(j.detail || String(r.status), id)); return; }
        say(box.getAttribute("data-msg-hero"));
        load();
      });
    }, function () { b.disabled = false; say(box.getAttribute("data-msg-failed")); });
  });
  // a Board Game Arena 2-player event's final: registered for, or withdrawn from (ahead, while
  // the round robin runs), by the player for themself — the API's own routes, with the token
  box.addEventListener("click", function (ev) {
    var b = ev.target.closest("button.bga-final");
    if (!b) return;
    var part = document.getElementById("my-bga-final");
    b.disabled = true;
    fetch("/v1/events/" + eventId + "/bga/final/" + b.getAttribute("data-step"), {
      method: "POST",
      headers: { Authorization: "Bearer " + token(), "Content-Type": "application/json" },
      body: JSON.stringify({ entry_id: part.getAttribute("data-entry") })
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) {
        b.disabled = false;
        if (!r.ok) { say(box.getAttribute("data-msg-failed") + " " + (j.detail || r.status)); return; }
        say(part.getAttribute("data-saved"));
        load();
      });
    }, function () { b.disabled = false; say(box.getAttribute("data-msg-failed")); });
  });
  // a Board Game Arena 3-player table's BGA table, as the console's form sends it (the page's own
  // route reads it as the API's body): judged, then listed under the table; a refusal is said in
  // the table's names and what was typed stays
  box.addEventListener("submit", function (ev) {
    var f = ev.target.closest("form[data-bga-form]");
    if (!f) return;
    ev.preventDefault();
    var b = f.querySelector("button[type=submit]"), id = f.getAttribute("data-match");
    b.disabled = true;
    fetch(f.getAttribute("action"), {
      method: "POST",
      headers: { Authorization: "Bearer " + token(), Accept: "application/json" },
      body: new URLSearchParams(new FormData(f))
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) {
        b.disabled = false;
        if (!r.ok) { say(box.getAttribute("data-msg-failed") + " " + named(j.detail || String(r.status), id)); return; }
        var open = document.getElementById("my-bga-" + id);
        if (open) open.removeAttribute("data-keep");  // recorded: the part is drawn afresh, closed
        say(f.getAttribute("data-saved"));
        load();
      });
    }, function () { b.disabled = false; say(box.getAttribute("data-msg-failed")); });
  });
  // a Rite of Command deal for another number of cards a player: the part drawn again
  box.addEventListener("submit", function (ev) {
    var f = ev.target.closest("form[data-deal-form]");
    if (!f) return;
    ev.preventDefault();
    deckSize = f.querySelector("input[name=deck_size]").value.trim();
    load();
  });
  box.addEventListener("submit", function (ev) {
    var f = ev.target.closest("form[data-player-places]");
    if (!f) return;
    ev.preventDefault();
    var got = placesOf(f);
    if (got.error) { say(box.getAttribute("data-msg-failed") + " " + got.error); return; }  // the choice stays
    var b = f.querySelector("button[type=submit]");
    enter(f.getAttribute("data-match"), got.body, got.said, b);
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
      if (a && box.contains(a) && (a.tagName === "INPUT" || a.tagName === "SELECT")) { timer = setTimeout(later, 1000); return; }
      timer = null; load();
    };
    (box.getAttribute("data-types") || "").split(",").forEach(function (type) {
      if (type) s.addEventListener(type, function () { if (!timer) timer = setTimeout(later, 300); });
    });
  }
  load();
  show();
  flush();
})();
