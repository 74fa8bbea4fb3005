import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import ts from 'typescript';
import { Client } from '../clients/client.entity';
import { ClientFilters, countQuery, getQuery, pageQuery } from '../clients/clients.repository';
import { ListClientsQuery } from '../clients/dto/list-clients.query';
import { linkQuery, linksBatchQuery } from '../links/links.repository';
import { filtersOf } from '../query/filters';
import { columnTypeOf } from './entity-columns';

// Security review, as tests: no value ever becomes SQL text; it travels as a bind parameter.
describe('SQL is never built from values', () => {
  const text = fc.string({ unit: 'binary', maxLength: 50 });
  const timestamp = fc
    .date({ min: new Date('1970-01-01'), max: new Date('2999-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString().replace('Z', '000Z'));

  // Every declared filter, given any value of its column's type, and given a fixed one.
  const declared = filtersOf(ListClientsQuery).map(({ name, property }) => ({
    name,
    type: columnTypeOf(Client, property as keyof Client & string),
  }));
  const anyValue: Record<string, fc.Arbitrary<unknown>> = {
    text,
    boolean: fc.boolean(),
    timestamptz: timestamp,
  };
  const fixedValue: Record<string, unknown> = { text: 'x', boolean: true, timestamptz: 'x' };
  const anyFilters = fc.record(
    Object.fromEntries(declared.map(({ name, type }) => [name, anyValue[type]])),
  ) as fc.Arbitrary<ClientFilters>;
  const shape = Object.fromEntries(
    declared.map(({ name, type }) => [name, fixedValue[type]]),
  ) as ClientFilters;

  it('the query builders give the same text for any values', () => {
    fc.assert(
      fc.property(
        anyFilters,
        text,
        text,
        timestamp,
        fc.nat(),
        (filters, linkId, id, createdAt, offset) => {
          const queries = [
            [countQuery(filters), countQuery(shape)],
            // A first page and a later one differ in shape, never by value.
            [pageQuery(filters, 7, { offset }), pageQuery(shape, 1, { offset: Math.sign(offset) })],
            [
              pageQuery(filters, 7, { after: { timestamp: createdAt, id } }),
              pageQuery(shape, 1, { after: { timestamp: 'x', id: 'x' } }),
            ],
            [pageQuery({ linkId }, 7, { offset: 0 }), pageQuery({ linkId: 'x' }, 1, { offset: 0 })],
            [
              pageQuery({ linkId }, 7, { after: { timestamp: createdAt, id } }),
              pageQuery({ linkId: 'x' }, 1, { after: { timestamp: 'x', id: 'x' } }),
            ],
            [getQuery(id), getQuery('x')],
            [linkQuery(id), linkQuery('x')],
            [
              linksBatchQuery(7, { timestamp: createdAt, id }),
              linksBatchQuery(1, { timestamp: 'x', id: 'x' }),
            ],
          ];
          for (const [actual, sameShape] of queries) {
            expect(actual.text).toBe(sameShape.text);
          }
          const values = declared.map(({ name }) => filters[name as keyof ClientFilters]);
          expect(countQuery(filters).params).toEqual(values);
        },
      ),
    );
  });

  const isFixedTextNode = (expr: ts.Node) =>
    ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr);

  const sourceFiles = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return sourceFiles(path);
      return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
    });

  it('every query call passes fixed SQL, or the text of a query builder with its parameters', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(join(__dirname, '..'))) {
      const source = ts.createSourceFile(
        file,
        readFileSync(file, 'utf8'),
        ts.ScriptTarget.Latest,
        true,
      );
      const visit = (node: ts.Node) => {
        const callee = ts.isCallExpression(node) ? node.expression : undefined;
        const isQuery =
          callee && ts.isPropertyAccessExpression(callee) && callee.name.text === 'query';
        if (ts.isCallExpression(node) && isQuery && node.arguments.length > 0) {
          const [sql, , options] = node.arguments;
          const fixed = isFixedTextNode(sql);
          // A third argument may only be read options made of literals ({ primary: true }) or a
          // builder's own `prepared` flag, or DatabaseReader's callback for pg's answer.
          const plainOptions =
            options === undefined ||
            (ts.isIdentifier(options) && options.text === 'done') ||
            (ts.isObjectLiteralExpression(options) &&
              options.properties.every(
                (p) =>
                  (ts.isShorthandPropertyAssignment(p) && p.name.text === 'prepared') ||
                  (ts.isPropertyAssignment(p) &&
                    [ts.SyntaxKind.TrueKeyword, ts.SyntaxKind.FalseKeyword].includes(
                      p.initializer.kind,
                    )),
              ));
          // DatabaseReader's prepared statements inherit their text, a builder's, from `statement`.
          const prepared = sql.getText() === 'Object.create(statement)';
          const built =
            (ts.isIdentifier(sql) && sql.text === 'text' && node.arguments.length <= 3) ||
            isBuiltQueryConfig(sql) ||
            prepared;
          // Migrations are fixed DDL; their templates and SQL builders take only their own
          // constants.
          const migration =
            file.includes(`${join('database', 'migrations')}`) &&
            (ts.isTemplateExpression(sql) || ts.isCallExpression(sql));
          if ((!fixed && !built && !migration) || !plainOptions) {
            const { line } = source.getLineAndCharacterOfPosition(node.getStart());
            offenders.push(`${file}:${line + 1}: ${node.getText().slice(0, 80)}`);
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(offenders).toEqual([]);
  });
});

/** `{ name, text, values: params }`: a query builder's text and parameters, as pg's config. */
function isBuiltQueryConfig(node: ts.Expression): boolean {
  if (!ts.isObjectLiteralExpression(node)) return false;
  const property = (name: string) =>
    node.properties.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === name);
  const text = property('text');
  const values = property('values');
  return (
    text !== undefined &&
    ts.isShorthandPropertyAssignment(text) &&
    values !== undefined &&
    ts.isPropertyAssignment(values) &&
    ts.isIdentifier(values.initializer) &&
    values.initializer.text === 'params'
  );
}
