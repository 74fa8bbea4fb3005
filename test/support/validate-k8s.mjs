// Validates Kubernetes objects (a JSON array on stdin) against the Kubernetes schemas shipped
// by kubernetes-models; prints one {kind, name, error} per object. Plain Node, because the
// package is ES modules only (Jest here runs CommonJS).
import { readFileSync } from 'node:fs';

const objects = JSON.parse(readFileSync(0, 'utf8'));
const results = [];
for (const object of objects) {
  const { apiVersion, kind, metadata } = object;
  let error = null;
  try {
    const module = await import(`kubernetes-models/${apiVersion}/${kind}`);
    new module[kind](object).validate();
  } catch (caught) {
    error = String(caught?.message ?? caught);
  }
  results.push({ kind, name: metadata?.name, error });
}
process.stdout.write(JSON.stringify(results));
