import { get } from 'node:http';
import { AddressInfo } from 'node:net';
import { LinksRepository } from '../../src/links/links.repository';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { fetchRaw, Received } from '../support/render-server';
import { waitFor } from '../support/wait-for';
import { SharedRender } from '../../src/responses/shared-render';

// A streamed body (~100 bytes a link) longer than the socket buffers on both sides hold, so a
// reader that stops falls far behind one that reads.
const LINKS = 150_000;

/**
 * A List Links request whose answer is not read until `read()`; `abort()` drops it. On a
 * connection of its own: a kept-alive one that was read at full speed has a receive buffer the
 * kernel grew (up to tcp_rmem's maximum), which could take the whole list for a stopped reader.
 */
function pausedGet(url: string) {
  let read = () => {};
  let abort = () => {};
  const answer = new Promise<Received>((resolve) => {
    const req = get(url, { headers: AUTH, agent: false }, (res) => {
      res.pause();
      read = () => res.resume();
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', () => undefined);
      res.on('close', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          complete: res.complete,
        }),
      );
    }).on('error', () => undefined);
    abort = () => req.destroy();
  });
  return { answer, read: () => read(), abort };
}

// Two requests share a render; one stops reading. The other is not held by it, and the one that
// stopped goes on alone when it reads again, from a snapshot of its own of the same list.
describe('List Links for a reader that falls behind the one it shares a render with', () => {
  let t: TestApp;
  let url: string;
  let renders: jest.SpyInstance;
  let joins: jest.SpyInstance;
  // What a test leaves open, released after it whatever its outcome: a render left waiting at
  // its gate, or a request never read, would keep the app from closing.
  let leftOpen: (() => void)[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    await t.dataSource.query(
      `INSERT INTO links (id) SELECT 'link-' || lpad(g::text, 6, '0') FROM generate_series(1, $1::int) g`,
      [LINKS],
    );
    const server = t.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/data/links`;
  }, 60_000);
  afterAll(() => t.close());
  beforeEach(() => {
    renders = jest.spyOn(t.app.get(LinksRepository), 'inOneSnapshot');
    joins = jest.spyOn(SharedRender.prototype, 'serve');
  });
  afterEach(() => {
    leftOpen.forEach((release) => release());
    leftOpen = [];
    jest.restoreAllMocks();
  });

  const change = () => t.dataSource.query(`UPDATE links SET id = id WHERE id = 'link-000001'`);

  /**
   * Both requests, sharing one render: it starts once both have joined it, however loaded the
   * machine (a request counted in flight may not have reached the render yet).
   * The snapshot the one that falls behind goes on from is taken only once `goOn()` is called:
   * its queued bytes may drain into the sockets' buffers before it reads again, and what the
   * list is then must be up to the test, not to the kernel's buffer sizes.
   */
  async function sharedRender() {
    let start = () => {};
    const started = new Promise<void>((resolve) => (start = resolve));
    let goOn = () => {};
    const goingOn = new Promise<void>((resolve) => (goOn = resolve));
    leftOpen.push(start, goOn);
    const inOneSnapshot = LinksRepository.prototype.inOneSnapshot;
    renders
      .mockImplementationOnce(async function (this: LinksRepository, read) {
        await started;
        return inOneSnapshot.call(this, read);
      })
      .mockImplementationOnce(async function (this: LinksRepository, read) {
        await goingOn;
        return inOneSnapshot.call(this, read);
      });
    const slow = pausedGet(url);
    leftOpen.push(slow.abort);
    const fast = fetchRaw(url, AUTH);
    await waitFor(() => joins.mock.calls.length === 2, { what: 'both requests joined' });
    expect(joins.mock.contexts[1] === joins.mock.contexts[0]).toBe(true);
    start();
    return { slow, fast: await fast, goOn };
  }

  it('finishes the reader that reads first, then the other alone, to the same body', async () => {
    await change();
    const { slow, fast, goOn } = await sharedRender();
    expect(fast).toMatchObject({ status: 200, complete: true });
    goOn();
    slow.read();
    const alone = await slow.answer;
    expect(alone).toMatchObject({ status: 200, complete: true });
    expect(alone.headers.etag).toBe(fast.headers.etag);
    expect(alone.body.equals(fast.body)).toBe(true);
    // One render for both, and one snapshot for the rest of the one that fell behind.
    expect(renders).toHaveBeenCalledTimes(2);
  }, 30_000);

  it('cuts the one that fell behind when the list changed before it read again', async () => {
    await change();
    const { slow, fast, goOn } = await sharedRender();
    expect(fast).toMatchObject({ status: 200, complete: true });
    await change();
    goOn();
    slow.read();
    // Its ETag names the list it began; rows of another would make a body no list ever was.
    expect(await slow.answer).toMatchObject({ status: 200, complete: false });
    expect(renders).toHaveBeenCalledTimes(2);
  }, 30_000);
});
