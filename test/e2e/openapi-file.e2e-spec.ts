import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { generateOpenApiJson } from '../../src/entry/write-openapi';
import { createTestApp, TestApp } from '../support/create-app';

const committed = readFileSync(join(__dirname, '../../openapi.json'), 'utf8');

describe('openapi.json (the committed document)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('is what the code generates, without a database (else run `npm run openapi`)', async () => {
    expect(await generateOpenApiJson()).toBe(committed);
  });

  // Collation would load ICU's data for the process's life (~1.7 MiB resident) to sort ASCII.
  it('is built without collation (localeCompare)', async () => {
    const localeCompare = jest.spyOn(String.prototype, 'localeCompare');
    try {
      await generateOpenApiJson();
      expect(localeCompare).not.toHaveBeenCalled();
    } finally {
      localeCompare.mockRestore();
    }
  });

  it('is what the running app serves at /docs/openapi.json', async () => {
    const served = await request(t.app.getHttpServer()).get('/docs/openapi.json').expect(200);
    expect(served.body).toEqual(JSON.parse(committed));
  });

  it('has a description and an example for every response', () => {
    const document = JSON.parse(committed);
    for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [status, response] of Object.entries<any>(item.get.responses)) {
        const where = `GET ${path} ${status}`;
        expect([where, response.description]).toEqual([where, expect.stringMatching(/\w/)]);
        // Answers without a body (304) have no content to exemplify.
        for (const media of Object.values<any>(response.content ?? {})) {
          expect([where, Boolean(media.example ?? media.examples)]).toEqual([where, true]);
        }
      }
    }
  });
});
