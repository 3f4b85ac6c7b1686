// The projector: every table of the hall's screen pages through its rows, as many a page as fit
// under its heading without scrolling, one page after another every data-interval seconds; pages
// are recomputed when the page is redrawn (live.js) or resized.
(function () {
  "use strict";
  var root = document.getElementById("live");
  if (!root) return;
  var every = Math.max(1, Number(root.getAttribute("data-interval") || "10")) * 1000;
  var tick = 0;
  var plans = [];

  function plan(section) {
    var table = section.querySelector("table");
    var pager = section.querySelector(".pager");
    if (!table || !table.tBodies.length) return null;
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    rows.forEach(function (r) { r.hidden = false; });
    if (pager) { pager.hidden = false; pager.textContent = "0"; }  // measured with its line
    var bottom = window.innerHeight - (pager ? pager.offsetHeight : 0) - 8;
    var start = rows.length ? rows[0].getBoundingClientRect().top : 0;
    var room = bottom - start;
    var pages = [], page = [], used = 0;
    rows.forEach(function (r) {
      var h = r.getBoundingClientRect().height;
      if (page.length && used + h > room) { pages.push(page); page = []; used = 0; }
      page.push(r); used += h;
    });
    if (page.length) pages.push(page);
    return { rows: rows, pages: pages, pager: pager };
  }

  function show() {
    plans.forEach(function (p) {
      if (!p) return;
      var k = p.pages.length ? tick % p.pages.length : 0;
      p.rows.forEach(function (r) { r.hidden = true; });
      (p.pages[k] || []).forEach(function (r) { r.hidden = false; });
      if (p.pager) {
        p.pager.hidden = p.pages.length < 2;
        p.pager.textContent = (p.pager.getAttribute("data-label") || "{k} / {n}")
          .replace("{k}", String(k + 1)).replace("{n}", String(p.pages.length));
      }
    });
  }

  function layout() {
    plans = Array.prototype.map.call(document.querySelectorAll("[data-pages]"), plan);
    show();
  }

  layout();
  setInterval(function () { tick += 1; show(); }, every);
  window.addEventListener("resize", layout);
  document.addEventListener("arbiter:redrawn", layout);
})();
