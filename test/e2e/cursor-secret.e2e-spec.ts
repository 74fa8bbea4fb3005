import { Test } from '@nestjs/testing';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { AppModule } from '../../src/app.module';
import { APP_OPTIONS, configureApp } from '../../src/app.setup';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { insertClients, insertLinks } from '../support/fixtures';

const OLD = 'old-cursor-secret-0123456789abcdef';
const NEW = 'new-cursor-secret-0123456789abcdef';
const OTHER = 'unknown-cursor-secret-0123456789ab';

/** Another app process on the same database, with the given cursor secrets. */
async function restartWith(current: string, previous?: string): Promise<NestExpressApplication> {
  process.env.CURSOR_SECRET = current;
  if (previous === undefined) delete process.env.CURSOR_SECRET_PREVIOUS;
  else process.env.CURSOR_SECRET_PREVIOUS = previous;
  const moduleRef = await Test.createTestingModule({
    imports: [await AppModule.forRoot()],
  }).compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(APP_OPTIONS);
  configureApp(app);
  return app.init();
}

// Cursor lifetime (docs/api.md): valid across restarts and replicas while CURSOR_SECRET is
// unchanged; the previous secret still verifies during a rotation; any other secret is a 400.
describe('Cursor secret', () => {
  let t: TestApp;
  let listCursor: string;
  let feedCursor: string;
  const follow = (app: NestExpressApplication) => ({
    list: () =>
      request(app.getHttpServer()).get(`/api/data/clients?cursor=${listCursor}`).set(AUTH),
    feed: () =>
      request(app.getHttpServer()).get(`/api/data/changes/clients?cursor=${feedCursor}`).set(AUTH),
  });

  beforeAll(async () => {
    t = await createTestApp({ env: { CURSOR_SECRET: OLD } });
    await insertLinks(t.dataSource, [{ id: 'l1' }]);
    await insertClients(t.dataSource, [
      { id: 'c1', linkId: 'l1', status: 'new', createdAt: '2026-01-01T00:00:01Z' },
      { id: 'c2', linkId: 'l1', status: 'new', createdAt: '2026-01-01T00:00:02Z' },
    ]);
    const list = await request(t.app.getHttpServer()).get('/api/data/clients?limit=1').set(AUTH);
    listCursor = encodeURIComponent(list.body.meta.nextCursor);
    const feed = await request(t.app.getHttpServer())
      .get('/api/data/changes/clients?limit=1')
      .set(AUTH);
    feedCursor = encodeURIComponent(feed.body.meta.nextCursor);
    await t.app.close();
  });
  afterAll(async () => {
    process.env.CURSOR_SECRET = OLD;
    await t.close();
  });

  const withApp = async (app: NestExpressApplication, check: () => Promise<void>) => {
    try {
      await check();
    } finally {
      await app.close();
    }
  };

  it('keeps cursors valid across a restart with the same secret', async () => {
    const app = await restartWith(OLD);
    await withApp(app, async () => {
      const res = await follow(app).list().expect(200);
      expect(res.body.data.map((c: { id: string }) => c.id)).toEqual(['c2']);
      await follow(app).feed().expect(200);
    });
  });

  it('accepts cursors signed with the previous secret, and signs new ones with the current', async () => {
    const app = await restartWith(NEW, OLD);
    let fresh = '';
    await withApp(app, async () => {
      await follow(app).list().expect(200);
      await follow(app).feed().expect(200);
      const res = await request(app.getHttpServer()).get('/api/data/clients?limit=1').set(AUTH);
      fresh = res.body.meta.nextCursor;
    });
    const onlyNew = await restartWith(NEW);
    await withApp(onlyNew, async () => {
      await request(onlyNew.getHttpServer())
        .get(`/api/data/clients?cursor=${encodeURIComponent(fresh)}`)
        .set(AUTH)
        .expect(200);
    });
  });

  it('rejects, with a 400 naming the cursor, one signed with a secret it does not know', async () => {
    const app = await restartWith(OTHER, NEW);
    await withApp(app, async () => {
      for (const res of [await follow(app).list(), await follow(app).feed()]) {
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([
          { name: 'cursor', reason: 'is not a cursor issued by this service' },
        ]);
      }
    });
  });
});
