/** A browsable page for the OpenAPI document, served from the swagger-ui-dist package (no CDN). */
export const docsPage = `<!doctype html>
<html>
<head><meta charset="utf-8"><title>Hyperlocal API</title><link rel="stylesheet" href="/api/docs/assets/swagger-ui.css"></head>
<body>
<div id="swagger-ui"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>`;

export const docsInit = `window.ui = SwaggerUIBundle({ url: '/api/docs/openapi.json', dom_id: '#swagger-ui' });`;
