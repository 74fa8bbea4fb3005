// The folder rules of docs/architecture.md, checked by `npm run lint`.
// Layers, top to bottom: a folder imports only folders of lower layers, never its own layer's
// other folders and never a higher one; so no two folders can import each other, directly or
// around a loop.
const LAYERS = [
  ['entry', 'main.ts'], // the entry points: src/main.ts (the production start) and src/entry/
  ['*.ts'], // the other files in src/: app.module, app.setup, start-api, standalone-data-source
  // The change feeds serve links and clients as they are: they reuse those resources' columns,
  // renderers and response types, so a field still has one home.
  ['changes'],
  ['links', 'clients'],
  ['health', 'metrics', 'docs'],
  ['auth', 'rate-limit'],
  ['limits'],
  // What every resource shares: the OpenAPI document; the checks before a controller runs;
  // query parameters and cursors; error bodies; response headers and bodies, and logs.
  ['openapi'],
  ['requests'],
  ['query'],
  ['errors'],
  ['responses', 'logging'],
  ['api-keys'],
  ['database', 'dev', 'redis'],
  ['telemetry', 'timing'],
  ['config'],
];
const RESOURCES = '^src/(links|clients|changes)/';

// A layer's member: a folder ('entry'), one file in src/ ('main.ts'), or '*.ts', every other
// file in src/.
const inFolder = (name) => {
  if (name === '*.ts') return '^src/(?!main\\.ts$)[^/]+\\.ts$';
  if (name.endsWith('.ts')) return `^src/${name.replace('.', '\\.')}$`;
  return `^src/${name}/`;
};
const labelOf = (name) => (name.endsWith('.ts') ? `src/${name}` : name);
const anyOf = (names) => names.map(inFolder).join('|');

const layerRules = LAYERS.flatMap((layer, index) =>
  layer
    .map((folder) => ({
      folder,
      above: [...LAYERS.slice(0, index).flat(), ...layer.filter((other) => other !== folder)],
    }))
    .filter(({ above }) => above.length > 0)
    .map(({ folder, above }) => ({
      name: `layers: ${labelOf(folder)}`,
      comment: 'A folder imports only the layers below its own (see docs/architecture.md).',
      severity: 'error',
      from: { path: inFolder(folder) },
      to: { path: anyOf(above) },
    })),
);

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules never import each other in a loop.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'resources-are-independent',
      comment: 'links/ and clients/ never import each other, nor the feeds above them.',
      severity: 'error',
      from: { path: '^src/(links|clients)/' },
      to: { path: RESOURCES, pathNot: '^src/$1/' },
    },
    {
      name: 'shared-imports-no-resource',
      comment: 'The shared folders serve every resource and import none.',
      severity: 'error',
      from: { path: '^src/(database|config|openapi|requests|query|errors|responses)/' },
      to: { path: RESOURCES },
    },
    {
      name: 'nothing-imports-entry',
      comment:
        'Entry points (src/main.ts, the production start; in src/entry/ the dev start, CLIs ' +
        'and openapi writer) are started, never imported.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/(?:entry/|main\\.ts$)' },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.spec\\.ts$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
