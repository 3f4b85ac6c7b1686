// The console: a preset chosen loads its knobs; in the results grid one key is one result
// (1, 2, … the seat that won; d a draw) on the focused row; at a table of three or more, digits
// are the seats' places in seat order, Enter records them.
(function () {
  "use strict";
  // a staff member's sign-in link (/console#token=…): the token, which never travels in a URL,
  // fills the sign-in form, sent at once (the fragment is taken off the address first)
  var signIn = document.getElementById("org-token");
  var given = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (signIn && given) {
    signIn.value = decodeURIComponent(given[1]);
    if (window.history && history.replaceState) history.replaceState(null, "", location.pathname);
    if (signIn.form.requestSubmit) signIn.form.requestSubmit(); else signIn.form.submit();
  }
  // an answer shown once (new players' links) was the response to a form: make this page the
  // console's own address, so that a reload shows the console instead of sending the form again
  var once = document.querySelector("[data-page-url]");
  if (once && window.history && history.replaceState) history.replaceState(null, "", once.getAttribute("data-page-url"));
  // the cards this page shows go along with the next batch or new link (their tokens in the form's
  // body, never in a URL): the answer shows them again beside the new ones, those still valid
  document.querySelectorAll("form[data-keeps-links]").forEach(function (f) {
    f.addEventListener("submit", function () {
      var tokens = [].map.call(document.querySelectorAll("#links a.personal"), function (a) {
        var t = /#token=([^&]+)/.exec(a.getAttribute("href") || "");
        return t ? decodeURIComponent(t[1]) : "";
      }).filter(Boolean);
      if (!tokens.length) return;
      var field = f.querySelector('input[name="shown"]');
      if (!field) {
        field = document.createElement("input");
        field.type = "hidden";
        field.name = "shown";
        f.appendChild(field);
      }
      field.value = tokens.join(" ");
    });
  });
  // back from a result (the redirect names its row): the focus goes to the next table still open,
  // so a round is entered key after key without reaching for the mouse
  // (after the browser's own move to the fragment, which would take the focus back to that row)
  function focusNext() {
    var target = location.hash && document.getElementById(location.hash.slice(1));
    if (!target || !target.hasAttribute("data-match-row")) return;
    var rows = Array.prototype.slice.call(document.querySelectorAll("[data-match-row]"));
    var at = rows.indexOf(target);
    var next = rows.slice(at).concat(rows.slice(0, at)).filter(function (r) {
      return /\bm-(pending|reported|disputed)\b/.test(r.className);
    })[0];
    if (next) next.focus();
  }
  if (document.readyState === "complete") setTimeout(focusNext, 0);
  else window.addEventListener("load", function () { setTimeout(focusNext, 0); });
  document.querySelectorAll("select[data-autosubmit]").forEach(function (s) {
    s.addEventListener("change", function () { s.form.submit(); });
  });
  document.addEventListener("keydown", function (ev) {
    var row = ev.target.closest && ev.target.closest("[data-match-row]");
    if (!row || ev.target !== row || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var b = row.querySelector('button[data-key="' + ev.key.toLowerCase() + '"]');
    if (b) { ev.preventDefault(); b.click(); return; }
    // a table of three or more: each digit is the next seat's place, in seat order; Enter records
    var form = row.querySelector("form[data-places-form]");
    if (!form) return;
    var seats = form.querySelector("table.places").tBodies[0].rows;
    if (/^[1-9]$/.test(ev.key)) {
      ev.preventDefault();
      var at = Number(row.getAttribute("data-typed") || "0");
      if (at >= seats.length) at = 0;
      var radio = seats[at].querySelector('input[type=radio][value="' + ev.key + '"]');
      if (radio) { radio.checked = true; row.setAttribute("data-typed", String(at + 1)); }
    } else if (ev.key === "Backspace") {
      ev.preventDefault();
      var back = Math.max(0, Number(row.getAttribute("data-typed") || "0") - 1);
      Array.prototype.forEach.call(seats[back].querySelectorAll("input[type=radio]"), function (r) { r.checked = false; });
      row.setAttribute("data-typed", String(back));
    } else if (ev.key === "Enter") {
      ev.preventDefault();
      form.requestSubmit ? form.requestSubmit() : form.submit();
    }
  });
})();
