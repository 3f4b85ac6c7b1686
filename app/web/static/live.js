// Live pages: follow the page's stream (data-stream: an event's, a season's or a rating pool's) and
// redraw the #live region from the page itself on each type data-types names. Without JavaScript the
// page stays whole.
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
  // what is typed or chosen and not yet sent — and what a refused form kept ([data-kept]) —
  // survives a redraw: each field by its id, the details around it left open
  function changed(el) {
    if (el.type === "checkbox" || el.type === "radio") return el.checked !== el.defaultChecked;
    if (el.tagName === "SELECT") return [].some.call(el.options, function (o) { return o.selected !== o.defaultSelected; });
    return el.value !== el.defaultValue;
  }
  function pending() {
    return [].filter.call(region.querySelectorAll("input[id], select[id], textarea[id]"), function (el) {
      return el.type !== "hidden" && el.type !== "file" && (changed(el) || el.closest("[data-kept]"));
    }).map(function (el) {
      return { id: el.id, value: el.value, checked: el.checked, open: !!(el.closest("details") && el.closest("details").open) };
    });
  }
  function restore(was) {
    var el = document.getElementById(was.id);
    if (!el) return;  // the table was recorded meanwhile: nothing left to fill in
    if (el.type === "checkbox" || el.type === "radio") el.checked = was.checked; else el.value = was.value;
    var around = el.closest("details");
    if (around && was.open) around.open = true;
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
        var typed = pending();
        region.innerHTML = fresh.innerHTML;
        typed.forEach(restore);
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
