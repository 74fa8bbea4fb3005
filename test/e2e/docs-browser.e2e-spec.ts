import { mkdtempSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserContext, chromium, Page } from 'playwright-core';
import { LIST_CLIENTS_OPERATION, LIST_CLIENTS_PARAMETERS } from '../support/client-filters';
import { createTestApp, TestApp } from '../support/create-app';
import { insertClients, insertLinks } from '../support/fixtures';
import { describeWith, programPath } from '../support/optional-program';

// `UPDATE_SCREENSHOT=1 npx jest docs-browser` refreshes the README's picture.
const SCREENSHOT = process.env.UPDATE_SCREENSHOT
  ? join(__dirname, '../../docs/api-reference.png')
  : undefined;

// Debian's Chromium (or CHROMIUM_PATH); nothing is downloaded.
describeWith(['chromium'], '/docs in a real browser (headless Chromium)', () => {
  let t: TestApp;
  let baseUrl: string;
  let browser: BrowserContext;
  let profile: string;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    await insertLinks(t.dataSource, [{ id: 'link-01', createdAt: '2026-01-01T01:00:00Z' }]);
    await insertClients(
      t.dataSource,
      Array.from({ length: 8 }, (_, i) => ({
        id: `client-0000${i + 1}`,
        linkId: 'link-01',
        status: i % 2 ? 'new' : 'connected',
        createdAt: `2026-02-01T00:0${i}:00Z`,
        updatedAt: `2026-02-02T00:0${i}:00Z`,
      })),
    );
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    profile = mkdtempSync(join(tmpdir(), 'docs-browser-'));
    // A fresh profile directory per run.
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: programPath('chromium'),
      viewport: { width: 1280, height: 1000 },
      timeout: 60_000,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = await browser.newPage();
    page.setDefaultTimeout(20_000);
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
    await page.goto(`${baseUrl}/docs`);
    await page.locator('.opblock').first().waitFor();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await t.close();
  });

  it('lists the six operations (each as GET and HEAD), with the bearer scheme', async () => {
    const operations = await page
      .locator('.opblock')
      .evaluateAll((blocks) => blocks.map((block) => block.id));
    expect(operations.sort()).toEqual([
      'operations-changes-clientChanges',
      'operations-changes-clientChangesHead',
      'operations-changes-linkChanges',
      'operations-changes-linkChangesHead',
      'operations-clients-getClient',
      'operations-clients-getClientHead',
      'operations-clients-listClients',
      'operations-clients-listClientsHead',
      'operations-links-getLink',
      'operations-links-getLinkHead',
      'operations-links-listLinks',
      'operations-links-listLinksHead',
    ]);
    await expect(page.locator('button.authorize').first().isVisible()).resolves.toBe(true);
  });

  it('shows the List Clients parameters, the status enum and the error responses', async () => {
    const operation = page.locator('#operations-clients-listClients');
    await operation.locator('.opblock-summary').click();
    // Swagger UI renders the expanded operation asynchronously.
    await operation.locator('tr[data-param-name="cursor"]').waitFor();
    const parameters = await operation
      .locator('tr[data-param-name]')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-param-name')));
    expect(parameters).toEqual(LIST_CLIENTS_PARAMETERS.map(({ name }) => name));
    const statusOptions = await operation
      .locator('tr[data-param-name="status"] select option')
      .allTextContents();
    expect(statusOptions).toEqual(expect.arrayContaining(['new', 'connected']));
    const codes = await operation
      .locator('.responses-table:not(.live-responses-table) > tbody > tr.response')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-code')));
    expect(codes).toEqual(Object.keys(LIST_CLIENTS_OPERATION.responses));
  });

  it('"Try it out" with a pasted key returns 200 with data', async () => {
    await page.locator('button.authorize').first().click();
    await page.locator('.auth-container input').fill('test-key-primary');
    await page.locator('.auth-btn-wrapper button.authorize').click();
    await page.locator('.auth-btn-wrapper button.btn-done').click();

    const operation = page.locator('#operations-clients-listClients');
    await operation.locator('.try-out__btn').click();
    await operation.locator('tr[data-param-name="limit"] input').fill('3');
    await operation.locator('tr[data-param-name="status"] select').selectOption('connected');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().startsWith(`${baseUrl}/api/data/clients?`)),
      operation.locator('button.execute').click(),
    ]);
    expect(response.status()).toBe(200);
    expect(response.request().headers().authorization).toBe('Bearer test-key-primary');
    const body = await response.json();
    expect(body.data.map((c: { id: string }) => c.id)).toEqual([
      'client-00001',
      'client-00003',
      'client-00005',
    ]);
    // What the reader sees: the status and the body of the live response.
    const shown = operation.locator('.live-responses-table tbody tr.response');
    await shown.waitFor();
    await expect(shown.locator('.response-col_status').textContent()).resolves.toBe('200');
    await expect(shown.locator('.response-col_description').textContent()).resolves.toContain(
      '"client-00003"',
    );
    await page.screenshot({
      path: SCREENSHOT ?? join(profile, 'api-reference.png'),
      // From the title to the live response: the part a reader sees first.
      fullPage: true,
      clip: { x: 0, y: 0, width: 1280, height: 1850 },
    });
  });

  it('"Try it out" on the client change feed returns 200 with the first changes', async () => {
    // Authorized once per page; this case does it itself when it runs alone (jest -t).
    await page.locator('button.authorize').first().click();
    await page.locator('.auth-container').first().waitFor();
    const keyInput = page.locator('.auth-container input');
    if (await keyInput.isVisible()) {
      await keyInput.fill('test-key-primary');
      await page.locator('.auth-btn-wrapper button.authorize').click();
    }
    await page.locator('.auth-btn-wrapper button.btn-done').click();

    const operation = page.locator('#operations-changes-clientChanges');
    await operation.locator('.opblock-summary').click();
    await operation.locator('tr[data-param-name="cursor"]').waitFor();
    await operation.locator('.try-out__btn').click();
    await operation.locator('tr[data-param-name="limit"] input').fill('3');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().startsWith(`${baseUrl}/api/data/changes/clients?`)),
      operation.locator('button.execute').click(),
    ]);
    expect(response.status()).toBe(200);
    // The key pasted into Authorize above is sent with every call.
    expect(response.request().headers().authorization).toBe('Bearer test-key-primary');
    const body = await response.json();
    const first = await t.dataSource.query(
      'SELECT id FROM clients ORDER BY updated_at, id COLLATE "C" LIMIT 3',
    );
    expect(body.data.map((c: { id: string }) => c.id)).toEqual(
      first.map((r: { id: string }) => r.id),
    );
    expect(body.meta).toEqual({ limit: 3, nextCursor: expect.any(String), hasMore: true });
    const shown = operation.locator('.live-responses-table tbody tr.response');
    await shown.waitFor();
    await expect(shown.locator('.response-col_status').textContent()).resolves.toBe('200');
    await expect(shown.locator('.response-col_description').textContent()).resolves.toContain(
      '"hasMore": true',
    );
  });

  it('logged no console error, page error or failed request', () => {
    expect(problems).toEqual([]);
  });
});
