import { Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ServiceBusyException } from '../errors/service-busy.exception';
import { ProblemDetailsFilter } from '../errors/problem-details.filter';
import { ChangesController } from './changes.controller';
import { ChangesPage, ChangesService } from './changes.service';

const req = { headers: {}, fresh: false } as Request;
const caller = { keyId: 'env-0' };
const PAGE: ChangesPage = {
  feed: 'links',
  rows: [],
  meta: { limit: 100, nextCursor: 'next', hasMore: false },
};

function controllerWith(page: Promise<ChangesPage>, respond = jest.fn()) {
  const changes = { clients: () => page, links: () => page } as unknown as ChangesService;
  const problems = { respond } as unknown as ProblemDetailsFilter;
  return new ChangesController(changes, problems);
}

function response() {
  const headers = new Map<string, unknown>();
  const res = {
    setHeader: jest.fn((name: string, value: unknown) => headers.set(name.toLowerCase(), value)),
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    send: jest.fn(),
    destroy: jest.fn(),
  };
  return res as typeof res & Response;
}

const settled = () => new Promise(setImmediate);

describe('ChangesController', () => {
  it.each(['clients', 'links'] as const)(
    'returns from the %s feed handler before its page comes (a waiting poll holds no handler call)',
    (feed) => {
      const waiting = new Promise<ChangesPage>(() => {});
      const res = response();
      expect(controllerWith(waiting)[feed]({ limit: 100 }, req, res, caller)).toBeUndefined();
      expect(res.send).not.toHaveBeenCalled();
    },
  );

  it('sends the page, with its ETag, once it comes', async () => {
    const res = response();
    controllerWith(Promise.resolve(PAGE)).links({ limit: 100 }, req, res, caller);
    await settled();
    expect(res.getHeader('ETag')).toMatch(/^W\/"/);
    const body = res.send.mock.calls[0][0] as Buffer;
    expect(JSON.parse(body.toString())).toEqual({ data: [], meta: PAGE.meta });
  });

  it('answers a failure that comes after the handler returned with the problem filter', async () => {
    const failure = new ServiceBusyException('poll_reads');
    const respond = jest.fn();
    const res = response();
    controllerWith(Promise.reject(failure), respond).clients({ limit: 100 }, req, res, caller);
    await settled();
    expect(respond).toHaveBeenCalledWith(failure, req, res);
    expect(res.destroy).not.toHaveBeenCalled();
  });

  it('ends the connection when answering the failure fails too: no rejection left unhandled', async () => {
    const respond = jest.fn(() => {
      throw new Error('cannot answer');
    });
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const res = response();
    const failed = Promise.reject(new Error('read failed'));
    controllerWith(failed, respond).links({ limit: 100 }, req, res, caller);
    await settled();
    expect(res.destroy).toHaveBeenCalled();
    expect(logged).toHaveBeenCalledWith(
      'Answering a failed feed request failed',
      expect.stringContaining('cannot answer'),
    );
    logged.mockRestore();
  });
});
