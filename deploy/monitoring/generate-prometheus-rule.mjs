// `npm run monitoring:rules`: writes prometheus-rule.yaml, the Prometheus Operator's form of
// rules.yml (its `spec` is that file's content), so the two never differ. With --check, writes
// nothing and fails when the committed file is not what this would write (the rules spec runs it).
import { readFileSync, writeFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';

const here = new URL('.', import.meta.url).pathname;
const RULES = `${here}rules.yml`;
const TARGET = `${here}prometheus-rule.yaml`;

const HEADER = `# Generated from rules.yml by \`npm run monitoring:rules\`: edit that file, then run it.
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: links-clients-api
  labels:
    app.kubernetes.io/component: monitoring
spec:
`;

/** rules.yml without its opening comment (which speaks of itself), indented under `spec:`. */
async function prometheusRule() {
  const lines = readFileSync(RULES, 'utf8').split('\n');
  const body = lines.slice(lines.findIndex((line) => !line.startsWith('#')));
  const indented = body.map((line) => (line ? `  ${line}` : line)).join('\n');
  // Formatted as `prettier --check .` expects it.
  return format(HEADER + indented, { ...(await resolveConfig(TARGET)), parser: 'yaml' });
}

const text = await prometheusRule();
if (!process.argv.includes('--check')) writeFileSync(TARGET, text);
else if (readFileSync(TARGET, 'utf8') !== text) {
  console.error(
    'deploy/monitoring/prometheus-rule.yaml differs from rules.yml: npm run monitoring:rules',
  );
  process.exit(1);
}
