import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';
import { MEMORY_ALERT_SHARE } from '../../src/metrics/memory-limit';
import { describeWith, programPath } from '../support/optional-program';
import { dashboardQueries, JOB, ruleFile } from '../support/monitoring';

const run = promisify(execFile);
const DIR = 'deploy/monitoring';

type K8sObject = {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec: Record<string, any>;
};

interface RuleTest {
  alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[];
}

// deploy/monitoring without a running Prometheus: the Operator's copy of the rules, the runbook
// links, the tests of every alert, and the thresholds taken from deploy/k8s.
describe('Monitoring rules and dashboard (deploy/monitoring)', () => {
  const rules = ruleFile();
  const alerts = rules.groups.flatMap((group) => group.rules).filter((rule) => rule.alert);
  const alertNames = [...new Set(alerts.map((rule) => rule.alert as string))];

  it('prometheus-rule.yaml is rules.yml, as `npm run monitoring:rules` writes it', () => {
    execFileSync('node', [`${DIR}/generate-prometheus-rule.mjs`, '--check']);
    const resource = parse(readFileSync(`${DIR}/prometheus-rule.yaml`, 'utf8')) as K8sObject;
    expect(resource.kind).toBe('PrometheusRule');
    expect(resource.spec).toEqual(rules);
  });

  it('every alert has a severity, a summary and a runbook entry in docs/operations.md', () => {
    const headings = readFileSync('docs/operations.md', 'utf8').match(/^### \S+$/gm) ?? [];
    for (const rule of alerts) {
      expect([rule.alert, rule.labels?.severity]).toEqual([
        rule.alert,
        expect.stringMatching(/^(page|ticket)$/),
      ]);
      expect(rule.annotations?.summary).toBeTruthy();
      expect(rule.annotations?.runbook_url).toBe(
        `docs/operations.md#${(rule.alert as string).toLowerCase()}`,
      );
      expect(headings).toContain(`### ${rule.alert}`);
    }
  });

  it('rules.test.yml fires every alert in one test and holds it back in another', () => {
    const tests = (parse(readFileSync(`${DIR}/rules.test.yml`, 'utf8')) as { tests: RuleTest[] })
      .tests;
    const checks = tests.flatMap((test) => test.alert_rule_test ?? []);
    for (const name of alertNames) {
      const mine = checks.filter((check) => check.alertname === name);
      expect([name, mine.some((check) => check.exp_alerts.length > 0)]).toEqual([name, true]);
      expect([name, mine.some((check) => check.exp_alerts.length === 0)]).toEqual([name, true]);
    }
  });

  it("every rule and dashboard query reads the job's series only", () => {
    const expressions = [
      ...rules.groups.flatMap((group) => group.rules.map((rule) => rule.expr)),
      ...dashboardQueries().map((query) => query.expr),
    ];
    for (const expr of expressions) {
      const selectors = expr.match(/\{[^{}]*\}/g) ?? [];
      for (const selector of selectors)
        expect([expr, selector]).toEqual([expr, expect.stringContaining(`job="${JOB}"`)]);
      // Without a selector: only series recorded here, by job.
      const names = expr.match(/[a-z][\w:]*_[\w:]*/g) ?? [];
      if (selectors.length === 0)
        for (const name of names)
          expect([expr, name]).toEqual([expr, expect.stringMatching(/^namespace_job:/)]);
    }
  });

  it('the memory alert and panel set resident memory against the limit each pod reports', () => {
    const memory = alerts.find((rule) => rule.alert === 'LinksClientsMemoryNearLimit');
    expect(memory?.expr).toBe(
      `process_resident_memory_bytes{job="${JOB}"} > ${MEMORY_ALERT_SHARE} * ` +
        `process_memory_limit_bytes{job="${JOB}"}`,
    );
    const panel = dashboardQueries().filter((q) => q.panel === 'Memory against the limit');
    expect(panel.map((q) => q.expr)).toContain(`process_memory_limit_bytes{job="${JOB}"}`);
  });
});

describeWith(['promtool'], 'Monitoring rules under promtool', () => {
  it('pass `promtool check rules`', async () => {
    const { stdout } = await run(programPath('promtool'), ['check', 'rules', `${DIR}/rules.yml`]);
    expect(stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('pass their unit tests (`promtool test rules rules.test.yml`)', async () => {
    const outcome = await run(programPath('promtool'), ['test', 'rules', `${DIR}/rules.test.yml`])
      .then(({ stdout }) => stdout)
      .catch((error: { stdout: string; stderr: string }) => `${error.stdout}${error.stderr}`);
    expect(outcome).toMatch(/SUCCESS/);
  });
});

// The component as the docs install it: deploy/k8s's commented `components:` lines taken in.
describeWith(['kubectl'], 'Monitoring component (deploy/monitoring with deploy/k8s)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'monitoring-kustomize-'));
  let objects: K8sObject[];

  beforeAll(() => {
    cpSync('deploy', join(dir, 'deploy'), { recursive: true });
    const kustomization = join(dir, 'deploy/k8s/kustomization.yaml');
    const text = readFileSync(kustomization, 'utf8');
    const enabled = text.replace(
      '# components:\n#   - ../monitoring',
      'components:\n  - ../monitoring',
    );
    expect(enabled).not.toBe(text);
    writeFileSync(kustomization, enabled);
    const rendered = execFileSync(programPath('kubectl'), ['kustomize', join(dir, 'deploy/k8s')], {
      encoding: 'utf8',
    });
    objects = parseAllDocuments(rendered).map((doc) => doc.toJS() as K8sObject);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const one = (kind: string) => {
    const found = objects.filter((object) => object.kind === kind);
    expect(found).toHaveLength(1);
    return found[0];
  };

  it('adds the rules and a ServiceMonitor, in the namespace', () => {
    for (const kind of ['PrometheusRule', 'ServiceMonitor'])
      expect(one(kind).metadata.namespace).toBe('links-clients');
    expect(one('PrometheusRule').spec).toEqual(ruleFile());
  });

  it('scrapes the metrics Service alone, as the job the rules select', () => {
    const monitor = one('ServiceMonitor');
    const matches = (service: K8sObject) =>
      Object.entries(monitor.spec.selector.matchLabels as Record<string, string>).every(
        ([key, value]) => service.metadata.labels?.[key] === value,
      ) &&
      (service.spec.ports as { name: string }[]).some(
        (port) => port.name === monitor.spec.endpoints[0].port,
      );
    const scraped = objects.filter((object) => object.kind === 'Service').filter(matches);
    expect(scraped.map((service) => service.metadata.name)).toEqual(['links-clients-api-metrics']);
    expect(scraped[0].metadata.labels?.[monitor.spec.jobLabel]).toBe(JOB);
    expect(monitor.spec.endpoints[0].path).toBe('/metrics');
  });
});
