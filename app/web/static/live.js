// Live pages: follow the event's stream and redraw the #live region from the page itself.
(function () {
  "use strict";
  var region = document.getElementById("live");
  if (!region || !window.EventSource) return;
  var label = document.querySelector("[data-live-label]");
  var timer = null;
  function busy() {
    var a = document.activeElement;
    // a field being filled in, or a row whose places are being typed (console.js marks it)
    return region.hasAttribute("data-keep-focus") && a && region.contains(a) &&
      (/INPUT|TEXTAREA|SELECT/.test(a.tagName) || a.hasAttribute("data-typed"));
  }
  function redraw() {
    timer = null;
    if (busy()) { timer = setTimeout(redraw, 1000); return; }
    fetch(location.pathname + location.search, { headers: { Accept: "text/html" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (!html) return;
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("live");
        if (!fresh) return;
        var focused = document.activeElement && document.activeElement.id;
        region.innerHTML = fresh.innerHTML;
        if (focused) { var el = document.getElementById(focused); if (el) el.focus(); }
        document.dispatchEvent(new CustomEvent("arbiter:redrawn"));
      });
  }
  var source = new EventSource(region.getAttribute("data-stream"));
  source.onopen = function () { if (label) label.textContent = region.getAttribute("data-on") || label.textContent; };
  (region.getAttribute("data-types") || "").split(",").forEach(function (type) {
    if (type) source.addEventListener(type, function () { if (!timer) timer = setTimeout(redraw, 250); });
  });
})();
