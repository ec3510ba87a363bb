// Starts Swagger UI on /docs. A file of its own: the page's Content-Security-Policy runs no
// inline script. The OpenAPI address comes from the page (data-openapi-url).
window.addEventListener("DOMContentLoaded", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.openapiUrl,
    domNode: root,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    deepLinking: true,
    persistAuthorization: true,
    validatorUrl: null, // the default sends the document to an online validator
  });
});
