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
});
