// The printed sheets' "Print" button: the page's own script, as no inline handler may run (CSP).
"use strict";
document.querySelectorAll("[data-print]").forEach(function (button) {
  button.addEventListener("click", function () { window.print(); });
});
