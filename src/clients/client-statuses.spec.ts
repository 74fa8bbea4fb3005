import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FILTERABLE_STATUSES } from './client-statuses';

const API_REFERENCE = readFileSync(join(__dirname, '../../docs/api.md'), 'utf8');
const spelled = (values: readonly string[]) =>
  values.map((value) => `\`${value}\``).join(values.length === 2 ? ' and ' : ', ');

// docs/api.md names the statuses a filter accepts in two places; both follow the constant.
describe('The filterable statuses in the API reference', () => {
  it('are the constant, in the resource table and in the List Clients parameters', () => {
    expect(API_REFERENCE).toContain(`${spelled(FILTERABLE_STATUSES)} can be filtered on`);
    const parameter = /^\| `status` +\| exactly (.*?) +\|/m.exec(API_REFERENCE)?.[1];
    expect(parameter?.split(' or ')).toEqual(FILTERABLE_STATUSES.map((value) => `\`${value}\``));
  });
});
