// The floor of the fixed stack, a measuring stick and not product code: the naive API
// (bench/naive-api.mjs, the same SQL as bench/reference-server.mjs) inside a bare NestJS +
// @nestjs/platform-express app — no logger, no pipes, no interceptors, a key check as its only
// guard. Plain JS, so decorators are applied by hand; it imports nothing from src/.
import 'reflect-metadata';
import {
  Controller,
  Get,
  Module,
  NotFoundException,
  Param,
  Query,
  UnauthorizedException,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { getById, listClients, listLinks, pool } from './naive-api.mjs';

const apiKey = process.env.API_KEYS;

class KeyGuard {
  canActivate(context) {
    if (context.switchToHttp().getRequest().headers.authorization === `Bearer ${apiKey}`)
      return true;
    throw new UnauthorizedException();
  }
}

const found = (row) => {
  if (row === undefined) throw new NotFoundException();
  return row;
};

class DataController {
  links() {
    return listLinks();
  }
  clients(query) {
    // Express 5's simple parser gives strings (arrays for repeated keys, which the naive API
    // does not handle either).
    return listClients({ get: (name) => query[name], has: (name) => name in query });
  }
  async link(id) {
    return found(await getById('links', id));
  }
  async client(id) {
    return found(await getById('clients', id));
  }
}

const routes = [
  ['links', 'links', undefined],
  ['clients', 'clients', Query()],
  ['links/:id', 'link', Param('id')],
  ['clients/:id', 'client', Param('id')],
];
for (const [path, method, parameter] of routes) {
  const descriptor = Object.getOwnPropertyDescriptor(DataController.prototype, method);
  Get(path)(DataController.prototype, method, descriptor);
  parameter?.(DataController.prototype, method, 0);
}
Controller('api/data')(DataController);

class BenchModule {}
Module({ controllers: [DataController] })(BenchModule);

const app = await NestFactory.create(BenchModule, { logger: false });
app.useGlobalGuards(new KeyGuard());
await app.listen(Number(process.env.PORT ?? 3002), '127.0.0.1');
console.log(`NestJS reference server listening on ${await app.getUrl()}`);
process.on('SIGTERM', () => app.close().then(() => pool.end().then(() => process.exit(0))));
