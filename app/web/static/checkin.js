// Check-in at the door: the link's fragment holds the player's token (never sent in a URL). The page
// shows who it is; one tap sends the API's check-in with the token as the bearer header. Opening the
// page changes nothing. The token is kept as the player's page keeps it, so "my page" opens signed in.
(function () {
  "use strict";
  var box = document.getElementById("door");
  if (!box) return;
  var eventId = box.getAttribute("data-event");
  var key = "arbiter:entry:" + eventId;
  var status = document.getElementById("door-status");
  var m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  var token = m ? decodeURIComponent(m[1]) : null;
  if (token) { try { localStorage.setItem(key, token); } catch (e) { /* private mode */ } }
  else { try { token = localStorage.getItem(key); } catch (e) { token = null; } }
  function say(text) { status.textContent = text; status.hidden = false; }
  function load(then) {
    if (!token) { say(box.getAttribute("data-msg-token")); return; }
    fetch("/e/" + eventId + "/check-in/view", { headers: { Authorization: "Bearer " + token, Accept: "text/html" } })
      .then(function (r) {
        if (!r.ok) { say(box.getAttribute("data-msg-token")); return null; }
        return r.text();
      })
      .then(function (html) {
        if (html === null || html === undefined) return;
        box.innerHTML = html;
        var b = box.querySelector("button[data-check-in]");
        if (then) then(); else if (b) b.focus();
      });
  }
  box.addEventListener("click", function (ev) {
    var b = ev.target.closest("button[data-check-in]");
    if (!b) return;
    b.disabled = true;
    fetch("/v1/events/" + eventId + "/entries/" + encodeURIComponent(b.getAttribute("data-check-in")) + "/check-in", {
      method: "POST", headers: { Authorization: "Bearer " + token }
    }).then(function (r) {
      return r.json().then(function (j) {
        if (r.ok) load(function () { say(box.getAttribute("data-msg-done")); status.focus(); });
        else { b.disabled = false; say(box.getAttribute("data-msg-failed") + " " + (j.detail || "")); }
      });
    }).catch(function () { b.disabled = false; say(box.getAttribute("data-msg-failed")); });
  });
  load();
})();
