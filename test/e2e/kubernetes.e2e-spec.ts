import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { parseAllDocuments, parse } from 'yaml';
import { validateEnvSections } from '../../src/config/env';
import { HttpEnv } from '../../src/config/http.env';
import { SECRET_VARIABLES as READ_FROM_FILES } from '../../src/config/secret-files';
import { createTestApp } from '../support/create-app';
import { describeWith, programPath } from '../support/optional-program';

const SECRET_VARIABLES = [
  'DATABASE_URL',
  'MIGRATION_DATABASE_URL',
  'API_KEYS',
  'CURSOR_SECRET',
  'CURSOR_SECRET_PREVIOUS',
];

/** What in rendered manifests would be a credential (none may be: the operator owns them). */
function credentialsIn(text: string, objects: unknown[]): string[] {
  const found: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    const object = node as Record<string, unknown>;
    if (object.kind === 'Secret')
      found.push(`a Secret (${(object.metadata as { name?: string })?.name})`);
    if (typeof object.name === 'string' && 'value' in object)
      if (SECRET_VARIABLES.includes(object.name)) found.push(`a literal value for ${object.name}`);
    Object.values(object).forEach(walk);
  };
  objects.forEach(walk);
  if (/change-?me/i.test(text)) found.push('a placeholder (change-me)');
  if (/\w+:\/\/[^\s/@:]+:[^\s/@]+@/.test(text)) found.push('a password in a URL');
  // A ConfigMap carries the same variable names as the environment.
  for (const name of SECRET_VARIABLES)
    if (new RegExp(`^\\s*${name}:`, 'm').test(text)) found.push(`${name} set in plain text`);
  return found;
}

type EgressRule = { to: unknown[]; ports: { port: number; protocol: string }[] };

/** Whether labels match a kubectl selector of `key=value` and `key in (a,b)` terms. */
function matchesSelector(selector: string, labels: Record<string, string> = {}): boolean {
  return selector.split(/,(?![^(]*\))/).every((term) => {
    const within = /^\s*(\S+)\s+in\s+\(([^)]*)\)\s*$/.exec(term);
    if (within)
      return within[2]
        .split(',')
        .map((v) => v.trim())
        .includes(labels[within[1]]);
    const [key, value] = term.split('=').map((part) => part.trim());
    return labels[key] === value;
  });
}

// Validated in a plain Node process (kubernetes-models is ES modules only).
function validate(objects: unknown[]): { kind: string; name: string; error: string | null }[] {
  const output = execFileSync('node', ['test/support/validate-k8s.mjs'], {
    input: JSON.stringify(objects),
    encoding: 'utf8',
  });
  return JSON.parse(output);
}

// deploy/k8s rendered by kustomize (kubectl), every object validated against
// the Kubernetes schemas, and the wiring between them checked.
describeWith(['kubectl'], 'Kubernetes manifests (deploy/k8s)', () => {
  const rendered = execFileSync(programPath('kubectl'), ['kustomize', 'deploy/k8s'], {
    encoding: 'utf8',
  });
  const objects = parseAllDocuments(rendered).map((doc) => doc.toJSON());
  const find = (kind: string, name?: string) => {
    const found = objects.filter(
      (object) => object.kind === kind && (name === undefined || object.metadata.name === name),
    );
    expect(found).toHaveLength(1);
    return found[0];
  };
  const deployment = find('Deployment');
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  const config = find('ConfigMap').data as Record<string, string>;
  const job = find('Job').spec.template.spec;

  it('renders the expected objects, each valid against its schema', () => {
    expect(objects.map((object) => object.kind).sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'HorizontalPodAutoscaler',
      'Job',
      'Namespace',
      'NetworkPolicy',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'Service',
      'Service',
    ]);
    expect(validate(objects).filter((result) => result.error !== null)).toEqual([]);
    for (const object of objects)
      if (object.kind !== 'Namespace') expect(object.metadata.namespace).toBe('links-clients');
  });

  it('the schema check bites: a wrong type is rejected', () => {
    const broken = structuredClone(deployment);
    broken.spec.replicas = 'two';
    const [result] = validate([broken]);
    expect(result.error).toContain('replicas');
  });

  it('renders no credential: no Secret, no password, no key, no placeholder', () => {
    expect(credentialsIn(rendered, objects)).toEqual([]);
  });

  it('the credential check bites: the example Secret once shipped here is caught', () => {
    const example = [
      'apiVersion: v1',
      'kind: Secret',
      'metadata: { name: links-clients-api }',
      'stringData:',
      '  API_KEYS: change-me-key-1,change-me-key-2',
      '  DATABASE_URL: postgres://links_clients:change-me@postgres:5432/links_clients',
    ].join('\n');
    expect(
      credentialsIn(
        example,
        parseAllDocuments(example).map((d) => d.toJSON()),
      ),
    ).toEqual([
      'a Secret (links-clients-api)',
      'a placeholder (change-me)',
      'a password in a URL',
      'DATABASE_URL set in plain text',
      'API_KEYS set in plain text',
    ]);
    const literal = { kind: 'Deployment', env: [{ name: 'API_KEYS', value: 'k'.repeat(40) }] };
    expect(credentialsIn(JSON.stringify(literal), [literal])).toEqual([
      'a literal value for API_KEYS',
    ]);
  });

  it("reads each secret from a file of the operator's Secret, mounted read-only, never from the environment", () => {
    const mounted = (spec: typeof pod, c: typeof container) => {
      const mount = c.volumeMounts.find((m: { name: string }) => m.name === 'secrets');
      const volume = spec.volumes.find((v: { name: string }) => v.name === 'secrets');
      expect(mount).toMatchObject({ readOnly: true });
      // Readable by the pod's group, no one else; no key listed, so the whole Secret is mounted.
      expect(volume.secret).toEqual({ secretName: volume.secret.secretName, defaultMode: 0o440 });
      expect(spec.securityContext.fsGroup).toBe(spec.securityContext.runAsGroup);
      const files = Object.fromEntries(
        c.env.map((v: { name: string; value: string }) => [v.name, v.value]),
      );
      expect(c.env.every((v: { valueFrom?: unknown }) => v.valueFrom === undefined)).toBe(true);
      return { secret: volume.secret.secretName, dir: mount.mountPath, files };
    };
    const api = mounted(pod, container);
    expect(api.secret).toBe('links-clients-api');
    expect(api.files).toEqual(
      Object.fromEntries(READ_FROM_FILES.map((name) => [`${name}_FILE`, `${api.dir}/${name}`])),
    );
    // The owner's URL is in a Secret of its own, which neither the API nor its readers see.
    const migrate = mounted(job, job.containers[0]);
    expect(migrate.secret).toBe('links-clients-migrate');
    expect(migrate.files).toEqual({ DATABASE_URL_FILE: `${migrate.dir}/DATABASE_URL` });
  });

  it('configures the app with a valid environment, through the ConfigMap and the Secret files', () => {
    // The Secret as the kubelet mounts it: one file per key, an unused one empty.
    const dir = mkdtempSync(join(tmpdir(), 'links-clients-secret-'));
    try {
      const secret: Record<string, string> = {
        DATABASE_URL: 'postgres://api@db/links_clients?sslmode=verify-full',
        API_KEYS: randomBytes(32).toString('base64url'),
        CURSOR_SECRET: randomBytes(32).toString('base64url'),
      };
      const fileEnv: Record<string, string> = {};
      for (const { name, value } of container.env as { name: string; value: string }[]) {
        const key = value.split('/').pop() as string;
        writeFileSync(join(dir, key), `${secret[key] ?? ''}\n`);
        fileEnv[name] = join(dir, key);
      }
      const sections = validateEnvSections({ ...config, ...fileEnv });
      const env = Object.assign({}, ...sections) as HttpEnv & Record<string, unknown>;
      expect(Object.keys(config).every((key) => key in env)).toBe(true);
      expect(env).toMatchObject({ ...secret, API_KEYS: [secret.API_KEYS] });
      expect(env.REDIS_URL).toBeUndefined();
      expect(container.envFrom).toEqual([
        { configMapRef: { name: find('ConfigMap').metadata.name } },
      ]);
      expect(job.containers[0].envFrom).toEqual(container.envFrom);
      expect(container.ports).toEqual([
        { name: 'http', containerPort: env.PORT, protocol: 'TCP' },
        { name: 'metrics', containerPort: env.METRICS_PORT, protocol: 'TCP' },
      ]);
      // The image's own settings are the ones the container runs with.
      expect(readFileSync('Dockerfile', 'utf8')).toContain(
        `EXPOSE ${env.PORT} ${env.METRICS_PORT}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the ConfigMap by its content, so an edited config.env rolls the pods', () => {
    const copy = mkdtempSync(join(tmpdir(), 'links-clients-k8s-'));
    try {
      cpSync('deploy/k8s', copy, { recursive: true });
      appendFileSync(join(copy, 'config.env'), 'TRUST_PROXY=1\n');
      const edited = parseAllDocuments(
        execFileSync(programPath('kubectl'), ['kustomize', copy], { encoding: 'utf8' }),
      ).map((doc) => doc.toJSON());
      const editedMap = edited.find((object) => object.kind === 'ConfigMap');
      const editedPod = edited.find((object) => object.kind === 'Deployment').spec.template.spec;
      expect(editedMap.data.TRUST_PROXY).toBe('1');
      expect(editedMap.metadata.name).not.toBe(find('ConfigMap').metadata.name);
      expect(editedPod.containers[0].envFrom).toEqual([
        { configMapRef: { name: editedMap.metadata.name } },
      ]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('leaves the replica count to the autoscaler (2+), spread, locked down, with requests and limits', () => {
    // A replica count here would be reset by every apply, scaling a busy Deployment down.
    expect(deployment.spec.replicas).toBeUndefined();
    expect(find('HorizontalPodAutoscaler').spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 1000,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    // What the restricted Pod Security Standard demands, enforced on the whole namespace.
    expect(find('Namespace').metadata.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'restricted',
    });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      privileged: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.resources.requests).toEqual({
      cpu: expect.any(String),
      memory: expect.any(String),
    });
    expect(container.resources.limits).toEqual({
      cpu: expect.any(String),
      memory: expect.any(String),
    });
    expect(
      pod.topologySpreadConstraints.map((c: { topologyKey: string }) => c.topologyKey),
    ).toEqual(['topology.kubernetes.io/zone', 'kubernetes.io/hostname']);
    for (const constraint of pod.topologySpreadConstraints)
      expect(constraint.labelSelector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
  });

  // Node's heap left unbounded grows under load past a small pod's limit (an OOM kill); the
  // bound is relative to the limit, the same in the image and the manifest.
  it("bounds the V8 heap to a share of the pod's memory limit, through the image", () => {
    const [, imageOptions] = /^ENV NODE_OPTIONS="(.*)"$/m.exec(readFileSync('Dockerfile', 'utf8'))!;
    // Nothing in the manifests replaces the image's bound.
    expect(container.env.map((variable: { name: string }) => variable.name)).not.toContain(
      'NODE_OPTIONS',
    );
    expect(config).not.toHaveProperty('NODE_OPTIONS');
    const percentage = Number(/--max-old-space-size-percentage=(\d+)/.exec(imageOptions)?.[1]);
    const semiSpaceMb = Number(/--max-semi-space-size=(\d+)/.exec(imageOptions)?.[1]);
    const limitMb = Number(/^(\d+)Mi$/.exec(container.resources.limits.memory)?.[1]);
    expect(container.resources.requests.memory).toBe(container.resources.limits.memory);
    // The measured idle RSS (~150 MB) is mostly code and native memory outside the heap bound;
    // old space and young generation together must leave it room.
    const heapMb = (limitMb * percentage) / 100 + 3 * semiSpaceMb;
    expect(limitMb - heapMb).toBeGreaterThanOrEqual(96);
    expect(limitMb).toBeGreaterThanOrEqual(256);
  });

  it('gives the drain and the in-flight requests time before the kubelet kills the pod', () => {
    const shutdownSeconds =
      (Number(config.SHUTDOWN_DRAIN_DELAY_MS) + Number(config.SHUTDOWN_TIMEOUT_MS)) / 1000;
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(shutdownSeconds);
    expect(pod.terminationGracePeriodSeconds).toBeLessThanOrEqual(shutdownSeconds + 15);
    // Readiness turns false within the drain delay.
    const { periodSeconds, failureThreshold } = container.readinessProbe;
    // One slow ping must not take every pod out of the Service at once.
    expect(failureThreshold).toBeGreaterThanOrEqual(3);
    expect(periodSeconds * failureThreshold * 1000).toBeLessThan(
      Number(config.SHUTDOWN_DRAIN_DELAY_MS),
    );
  });

  it('points the probes at real, public routes of the app on the container port', async () => {
    const probes = ['startupProbe', 'livenessProbe', 'readinessProbe'].map(
      (name) => container[name],
    );
    expect(probes.map((probe) => probe.httpGet.path)).toEqual([
      '/health/live',
      '/health/live',
      '/health/ready',
    ]);
    // The app listens where the container ports say: PORT and METRICS_PORT keep their defaults.
    expect(container.ports.map((port: { containerPort: number }) => port.containerPort)).toEqual([
      3000, 9464,
    ]);
    expect(config.PORT).toBeUndefined();
    expect(config.METRICS_PORT).toBeUndefined();
    const t = await createTestApp();
    try {
      for (const probe of probes) {
        expect(probe.httpGet.port).toBe('http');
        await request(t.app.getHttpServer()).get(probe.httpGet.path).expect(200);
      }
    } finally {
      await t.close();
    }
  });

  const egressOf = (policy: { spec: { egress: EgressRule[] } }) =>
    policy.spec.egress.map((rule) => ({
      to: rule.to,
      ports: rule.ports.map(({ port, protocol }) => `${port}/${protocol}`),
    }));
  const DNS = {
    to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } } }],
    ports: ['53/UDP', '53/TCP'],
  };
  const DATABASE = { to: [{ ipBlock: { cidr: '203.0.113.10/32' } }], ports: ['5432/TCP'] };

  it('selects the API pods from the Services, the PDB, the HPA and the NetworkPolicy', () => {
    const podLabels = deployment.spec.template.metadata.labels;
    const selects = (selector: Record<string, string>) =>
      Object.entries(selector).every(([key, value]) => podLabels[key] === value);
    const service = find('Service', 'links-clients-api');
    expect(selects(service.spec.selector)).toBe(true);
    expect(service.spec.ports.map((port: { targetPort: string }) => port.targetPort)).toEqual([
      'http',
    ]);
    // The scrape has a Service of its own: no route to the API's reaches /metrics.
    const metrics = find('Service', 'links-clients-api-metrics');
    expect(selects(metrics.spec.selector)).toBe(true);
    expect(metrics.spec.ports).toEqual([
      { name: 'metrics', port: 9464, targetPort: 'metrics', protocol: 'TCP' },
    ]);
    expect(selects(find('PodDisruptionBudget').spec.selector.matchLabels)).toBe(true);
    const policy = find('NetworkPolicy', 'links-clients-api');
    expect(selects(policy.spec.podSelector.matchLabels)).toBe(true);
    // Named pods only, each to its port: any other could forge X-Forwarded-For under
    // TRUST_PROXY=1, and only the monitoring namespace reads the metrics.
    expect(policy.spec.ingress).toEqual([
      {
        from: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } },
            podSelector: {
              matchExpressions: [
                { key: 'app.kubernetes.io/name', operator: 'In', values: ['ingress-nginx'] },
              ],
            },
          },
        ],
        ports: [{ port: 'http', protocol: 'TCP' }],
      },
      {
        from: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
            podSelector: {
              matchExpressions: [
                { key: 'app.kubernetes.io/name', operator: 'In', values: ['prometheus'] },
              ],
            },
          },
        ],
        ports: [{ port: 'metrics', protocol: 'TCP' }],
      },
    ]);
    // DNS in the cluster; PostgreSQL and Redis at the addresses the operator fills in, which
    // docs/operations.md names.
    const redis = { to: [{ ipBlock: { cidr: '203.0.113.20/32' } }], ports: ['6379/TCP'] };
    expect(egressOf(policy)).toEqual([DNS, DATABASE, redis]);
    const operations = readFileSync('docs/operations.md', 'utf8');
    for (const cidr of ['203.0.113.10/32', '203.0.113.20/32']) expect(operations).toContain(cidr);
    const hpa = find('HorizontalPodAutoscaler');
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: deployment.metadata.name,
    });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
  });

  it('lets the migration Job reach only DNS and PostgreSQL, and nothing reach it', () => {
    const policy = find('NetworkPolicy', 'links-clients-migrate');
    const podLabels = find('Job').spec.template.metadata.labels;
    const selector = policy.spec.podSelector.matchLabels as Record<string, string>;
    expect(Object.entries(selector).every(([key, value]) => podLabels[key] === value)).toBe(true);
    expect(podLabels['app.kubernetes.io/component']).toBe('migration');
    expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(policy.spec.ingress).toBeUndefined();
    expect(egressOf(policy)).toEqual([DNS, DATABASE]);
  });

  it('migrates first as documented: the step that applies the Job applies its ConfigMap, not the API', () => {
    const operations = readFileSync('docs/operations.md', 'utf8');
    const [, selector] = /kubectl apply -k deploy\/k8s -l '([^']+)'/.exec(operations) ?? [];
    expect(selector).toBeDefined();
    const applied = objects.filter((object) => matchesSelector(selector, object.metadata.labels));
    const names = applied.map((object) => `${object.kind}/${object.metadata.name}`).sort();
    const configMaps = job.containers[0].envFrom.map(
      (from: { configMapRef: { name: string } }) => `ConfigMap/${from.configMapRef.name}`,
    );
    expect(names).toEqual(
      [...configMaps, 'Job/links-clients-migrate', 'NetworkPolicy/links-clients-migrate'].sort(),
    );
  });

  it('migrates with the same command as docker-compose, as the same locked-down user', () => {
    const compose = parse(readFileSync('docker-compose.yml', 'utf8'));
    expect(job.containers[0].command).toEqual(compose.services.migrate.command);
    expect(job.containers[0].image).toBe(container.image);
    // Never a bare name, which a cluster would look up on Docker Hub.
    expect(container.image).toBe('registry.example.com/links-clients-api:0.1.0');
    expect(job.containers[0].securityContext).toEqual(container.securityContext);
    expect(job.restartPolicy).toBe('Never');
  });
});
