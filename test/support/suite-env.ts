import { randomBytes } from 'node:crypto';

// Runs before each test file, in that file's own copy of process.env: every suite gets a
// database of its own on the server chosen by global-setup.ts (created by database.ts).
const url = new URL(process.env.TEST_SERVER_URL as string);
url.pathname = `/test_${randomBytes(6).toString('hex')}`;
process.env.DATABASE_URL = url.toString();
process.env.API_KEYS = 'test-key-primary,test-key-rotated';
// One secret for the whole run, so an app restarted within a suite keeps accepting its cursors.
process.env.CURSOR_SECRET = 'test-cursor-secret-0123456789abcdef';
delete process.env.CURSOR_SECRET_PREVIOUS;
// The scrape on any free port, so apps in parallel suites never meet (metrics.ts reads it).
process.env.METRICS_PORT = '0';
// Limits high enough for the suites that send hundreds of requests; rate-limit suites lower them.
process.env.RATE_LIMIT_PER_KEY = '1000000';
process.env.RATE_LIMIT_PER_IP = '1000000';
// Quiet unless asked (TEST_LOG_LEVEL=info npm test); the logging spec captures its own lines.
process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';
