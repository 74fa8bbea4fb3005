import fs from 'node:fs';
import { DocsFiles } from './docs-files';

// Records whether anything loads swagger-ui-dist's browser bundle into the server.
jest.mock('swagger-ui-dist/swagger-ui-bundle.js', () => {
  (globalThis as { swaggerUiBundleLoaded?: boolean }).swaggerUiBundleLoaded = true;
  return {};
});

describe('DocsFiles', () => {
  it("serves swagger-ui's files without loading its browser bundle into the server", () => {
    const files = new DocsFiles();
    files.prepare({ openapi: '3.0.0', info: { title: 't', version: '1' }, paths: {} });
    expect(files.get('swagger-ui-bundle.js')?.body.length).toBeGreaterThan(100_000);
    expect((globalThis as { swaggerUiBundleLoaded?: boolean }).swaggerUiBundleLoaded).toBe(
      undefined,
    );
  });

  it("reads swagger-ui's files when first asked for, once, and only once prepared", () => {
    const reads = jest.spyOn(fs, 'readFileSync');
    const files = new DocsFiles();
    expect(files.get('swagger-ui.css')).toBeUndefined();
    files.prepare({ openapi: '3.0.0', info: { title: 't', version: '1' }, paths: {} });
    expect(files.get('openapi.json')).toBeDefined();
    expect(reads).not.toHaveBeenCalled();
    const css = files.get('swagger-ui.css');
    expect(css?.type).toBe('text/css; charset=utf-8');
    expect(files.get('swagger-ui.css')).toBe(css);
    expect(reads).toHaveBeenCalledTimes(1);
    expect(files.get('constructor')).toBeUndefined();
    expect(files.get('package.json')).toBeUndefined();
    reads.mockRestore();
  });
});
