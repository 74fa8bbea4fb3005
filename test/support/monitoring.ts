import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** The Prometheus job of the API's pods: the scrape's job_name, the ServiceMonitor's jobLabel. */
export const JOB = 'links-clients-api';

export interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** deploy/monitoring/rules.yml, parsed. */
export function ruleFile(): { groups: { name: string; rules: Rule[] }[] } {
  return parse(readFileSync('deploy/monitoring/rules.yml', 'utf8'));
}

export interface DashboardQuery {
  panel: string;
  expr: string;
}

/** Every query of deploy/monitoring/dashboard.json, with the panel it belongs to. */
export function dashboardQueries(): DashboardQuery[] {
  const dashboard = JSON.parse(readFileSync('deploy/monitoring/dashboard.json', 'utf8'));
  return (dashboard.panels as { title: string; targets?: { expr: string }[] }[]).flatMap((panel) =>
    (panel.targets ?? []).map(({ expr }) => ({ panel: panel.title, expr })),
  );
}
