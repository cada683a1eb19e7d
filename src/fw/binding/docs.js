// Starts Swagger UI on the OpenAPI document the page names. It is a file, not an inline script, so
// the page's Content-Security-Policy can allow scripts from the application only. validatorUrl is
// off: Swagger UI would otherwise send the document to an online validator.
window.addEventListener("load", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.openapi,
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
