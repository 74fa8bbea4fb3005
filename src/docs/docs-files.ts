import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import etag from 'etag';
import { dump } from 'js-yaml';
import { PrecompressedBody } from '../responses/precompressed-body';

/** One file of the /docs reference, as it is sent: its type, ETag and body. */
export interface DocsFile {
  type: string;
  etag: string;
  body: PrecompressedBody;
}

const JS = 'application/javascript; charset=utf-8';

// Found by the package's path, never by requiring it: its main module loads the whole browser
// bundle into the server (tens of MB of resident memory, for nothing).
const SWAGGER_UI_DIST = dirname(require.resolve('swagger-ui-dist/package.json'));

// The files of swagger-ui-dist the page loads; the package's others (its package.json, README,
// source maps) name versions and people and are never served.
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': JS,
  'swagger-ui-standalone-preset.js': JS,
  'favicon-16x16.png': 'image/png',
  'favicon-32x32.png': 'image/png',
};

/** The page, its links relative to where it is served: `/docs` (`./docs/…`) or `/docs/` (`./…`). */
const page = (base: string) => `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <title>Links and Clients Data API</title>
  <link rel="stylesheet" type="text/css" href="${base}swagger-ui.css">
  <link rel="icon" type="image/png" href="${base}favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="${base}favicon-16x16.png" sizes="16x16">
  <style>body { margin: 0; background: #fafafa; }</style>
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${base}swagger-ui-bundle.js" charset="UTF-8"></script>
  <script src="${base}swagger-ui-standalone-preset.js" charset="UTF-8"></script>
  <script src="${base}swagger-ui-init.js" charset="UTF-8"></script>
</body>
</html>
`;

// The document is loaded from beside this script, wherever the page is served, and "Try it
// out" calls the API that serves the page.
const INIT_JS = `const documentUrl = new URL('openapi.json', document.currentScript.src).href;
window.onload = async function () {
  const spec = await (await fetch(documentUrl)).json();
  spec.servers = [{ url: location.origin, description: 'This deployment' }];
  window.ui = SwaggerUIBundle({
    spec,
    dom_id: '#swagger-ui',
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
  });
};
`;

/**
 * Everything served under /docs without a key, each file made once and compressed once per
 * encoding in the background (PrecompressedBody): what an anonymous caller can ask for costs a
 * lookup and a write, never a render or a compression of its own. The document's files are
 * made when the app starts; swagger-ui's (2 MB, and their compressed copies) when first asked
 * for, so a pod whose /docs no one opens never holds them.
 */
@Injectable()
export class DocsFiles {
  private readonly files = new Map<string, DocsFile>();
  private isPrepared = false;

  /** Makes the document's files from the app's OpenAPI document; until then /docs answers 404. */
  prepare(document: OpenAPIObject): void {
    this.isPrepared = true;
    this.add('', 'text/html; charset=utf-8', page('./docs/'));
    this.add('/', 'text/html; charset=utf-8', page('./'));
    this.add('swagger-ui-init.js', JS, INIT_JS);
    this.add('openapi.json', 'application/json; charset=utf-8', JSON.stringify(document));
    this.add(
      'openapi.yaml',
      'text/yaml; charset=utf-8',
      dump(document, { noRefs: true, skipInvalid: true }),
    );
  }

  /** The file at `/docs/<name>` (`''` is `/docs`, `'/'` is `/docs/`), if one is served there. */
  get(name: string): DocsFile | undefined {
    const file = this.files.get(name);
    if (file || !this.isPrepared || !Object.hasOwn(ASSETS, name)) return file;
    return this.add(name, ASSETS[name], readFileSync(join(SWAGGER_UI_DIST, name)));
  }

  private add(name: string, type: string, content: string | Buffer): DocsFile {
    const bytes = Buffer.from(content);
    const body = new PrecompressedBody(bytes);
    if (!type.startsWith('image/')) body.compressAhead();
    const file = { type, etag: etag(bytes, { weak: true }), body };
    this.files.set(name, file);
    return file;
  }
}
