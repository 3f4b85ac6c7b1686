// The console: a preset chosen loads its knobs; in the results grid one key is one result
// (1, 2, … the seat that won; d a draw) on the focused row.
(function () {
  "use strict";
  // an answer shown once (new players' links) was the response to a form: make this page the
  // console's own address, so that a reload shows the console instead of sending the form again
  var once = document.querySelector("[data-page-url]");
  if (once && window.history && history.replaceState) history.replaceState(null, "", once.getAttribute("data-page-url"));
  document.querySelectorAll("select[data-autosubmit]").forEach(function (s) {
    s.addEventListener("change", function () { s.form.submit(); });
  });
  document.addEventListener("keydown", function (ev) {
    var row = ev.target.closest && ev.target.closest("[data-match-row]");
    if (!row || ev.target !== row || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var b = row.querySelector('button[data-key="' + ev.key.toLowerCase() + '"]');
    if (b) { ev.preventDefault(); b.click(); }
  });
})();
