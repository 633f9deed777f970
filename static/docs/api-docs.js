// Starts Swagger UI on the OpenAPI document named by #swagger-ui's data-url. A file of its
// own, not an inline script: the page's Content-Security-Policy allows scripts from 'self'
// only.
window.addEventListener("DOMContentLoaded", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.url,
    dom_id: "#swagger-ui",
    deepLinking: true,
    // No validity badge: it would load an image from validator.swagger.io.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
