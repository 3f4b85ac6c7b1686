// The offline API docs (/docs): Swagger UI, served from its Python package, started by the page's
// own script rather than an inline one (the pages' Content-Security-Policy admits no inline script).
"use strict";
(function () {
  var root = document.getElementById("swagger-ui");
  window.SwaggerUIBundle({
    url: root.getAttribute("data-openapi"),
    dom_id: "#swagger-ui",
    layout: "BaseLayout",
    deepLinking: true,
    showExtensions: true,
    showCommonExtensions: true,
    persistAuthorization: false,
    presets: [window.SwaggerUIBundle.presets.apis, window.SwaggerUIBundle.SwaggerUIStandalonePreset],
  });
})();
