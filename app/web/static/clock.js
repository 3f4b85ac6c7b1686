// The round clock and the latest announcement, on any page of an event (docs/api.md "The round
// clock", "Announcements"). The time comes from the server: GET …/clock says what is left at the
// server's moment of answering, and the page counts down from when it received that answer
// (performance.now), never from its own wall clock; every clock.* change on the stream, and every
// reconnection, asks the server again, so a page that missed changes shows the right time at once.
(function () {
  "use strict";
  var hall = document.querySelector("[data-hall]");
  if (!hall || !window.fetch) return;
  var id = hall.getAttribute("data-event");
  var clock = hall.querySelector("[data-clock]");
  var time = hall.querySelector("[data-clock-time]");
  var state = hall.querySelector("[data-clock-state]");
  var note = hall.querySelector("[data-announcement]");
  var words = { running: hall.getAttribute("data-running"), paused: hall.getAttribute("data-paused"),
                ended: hall.getAttribute("data-ended") };
  var current = null;

  function mmss(seconds) {
    var s = Math.max(0, Math.ceil(seconds));
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
    return (h ? h + ":" + (m < 10 ? "0" : "") : "") + m + ":" + (r < 10 ? "0" : "") + r;
  }
  function tick() {
    if (!current) return;
    var left = current.left - (current.state === "running" ? (performance.now() - current.at) / 1000 : 0);
    var shown = current.state === "running" && left <= 0 ? "ended" : current.state;
    clock.hidden = shown === "idle";
    clock.setAttribute("data-state", shown);
    state.textContent = words[shown] || "";
    time.textContent = shown === "ended" ? "0:00" : mmss(left);
  }
  function refresh() {
    fetch("/v1/events/" + id + "/clock", { cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (c) {
        if (!c) return;
        current = { state: c.state, left: c.remaining_s, at: performance.now() };
        tick();
      });
  }
  function say(text) { note.textContent = text; note.hidden = !text; }
  function latest() {
    fetch("/v1/events/" + id + "/announcements?limit=1")
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (p) { if (p && p.items.length) say(p.items[0].text); });
  }
  refresh();
  latest();
  setInterval(tick, 250);
  if (!window.EventSource) return;
  var source = new EventSource("/v1/events/" + id + "/stream");
  source.onopen = refresh;
  ["clock.started", "clock.paused", "clock.resumed", "clock.extended", "clock.stopped", "clock.ended"]
    .forEach(function (type) { source.addEventListener(type, refresh); });
  source.addEventListener("announcement.posted", function (e) {
    try { say(JSON.parse(e.data).data.text); } catch (err) { latest(); }
  });
})();
