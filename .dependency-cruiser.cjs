// The folder rules of docs/architecture.md, checked by `npm run lint`.
// Layers, top to bottom: a folder imports only folders of lower layers, never its own layer's
// other folders and never a higher one; so no two folders can import each other, directly or
// around a loop.
const LAYERS = [
  ['entry'],
  ['(?:[^/]+\\.ts)'], // src/app.module.ts, app.setup.ts, start-api.ts, standalone-data-source.ts
  // The change feeds serve links and clients as they are: they reuse those resources' columns,
  // renderers and response types, so a field still has one home.
  ['changes'],
  ['links', 'clients'],
  ['health', 'metrics'],
  ['auth', 'rate-limit', 'logging'],
  ['api-keys', 'http'],
  ['database', 'dev'],
  ['config'],
];
const RESOURCES = '^src/(links|clients|changes)/';

const inFolder = (name) => (name.startsWith('(') ? `^src/${name}$` : `^src/${name}/`);
const anyOf = (names) => names.map(inFolder).join('|');

const layerRules = LAYERS.flatMap((layer, index) =>
  layer
    .map((folder) => ({
      folder,
      above: [...LAYERS.slice(0, index).flat(), ...layer.filter((other) => other !== folder)],
    }))
    .filter(({ above }) => above.length > 0)
    .map(({ folder, above }) => ({
      name: `layers: ${folder.startsWith('(') ? 'src/*.ts' : folder}`,
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
      comment: 'database/, config/ and http/ serve every resource and import none.',
      severity: 'error',
      from: { path: '^src/(database|config|http)/' },
      to: { path: RESOURCES },
    },
    {
      name: 'nothing-imports-entry',
      comment: 'Entry points (main, dev start, CLIs, openapi writer) are started, never imported.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/entry/' },
      to: { path: '^src/entry/' },
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
