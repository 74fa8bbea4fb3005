import type { Request, Response } from 'express';
import { ServiceBusyException } from '../errors/service-busy.exception';
import { ProblemDetailsFilter } from '../errors/problem-details.filter';
import { ChangesController } from './changes.controller';
import { ChangesPage, ChangesService } from './changes.service';

const req = {} as Request;
const res = { destroy: jest.fn() } as unknown as Response;
const caller = { keyId: 'env-0' };

function controllerWith(page: Promise<ChangesPage>, respond = jest.fn()) {
  const changes = { clients: () => page, links: () => page } as unknown as ChangesService;
  const problems = { respond } as unknown as ProblemDetailsFilter;
  return new ChangesController(changes, problems);
}

describe('ChangesController', () => {
  it.each(['clients', 'links'] as const)(
    'returns from the %s feed handler at once: a waiting poll holds its response, not the handler',
    (feed) => {
      const waiting = new Promise<ChangesPage>(() => {});
      expect(controllerWith(waiting)[feed]({ limit: 100 }, req, res, caller)).toBeUndefined();
    },
  );

  it('answers a failure that comes after the handler returned with the problem filter', async () => {
    const failure = new ServiceBusyException('poll_reads');
    const respond = jest.fn();
    controllerWith(Promise.reject(failure), respond).clients({ limit: 100 }, req, res, caller);
    await new Promise(setImmediate);
    expect(respond).toHaveBeenCalledWith(failure, req, res);
  });

  it('ends the connection when answering the failure fails too, leaving no rejection unhandled', async () => {
    const respond = jest.fn(() => {
      throw new Error('cannot answer');
    });
    controllerWith(Promise.reject(new Error('read failed')), respond).links({ limit: 100 }, req, res, caller);
    await new Promise(setImmediate);
    expect(res.destroy).toHaveBeenCalled();
  });
});
