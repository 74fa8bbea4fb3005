import { ConsoleLogger, ConsoleLoggerOptions } from '@nestjs/common';
import { MANAGED_KEY_PATTERN } from '../api-keys/api-key-format';

const CENSOR = '[REDACTED]';
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The app's logger: Nest's console logger with every API key and bearer credential masked,
 * whatever logged it (issue 3; CONTRACT §4: the plain key is never logged).
 */
export class RedactingLogger extends ConsoleLogger {
  private readonly secrets: RegExp;

  constructor(environmentKeys: readonly string[], options: ConsoleLoggerOptions = {}) {
    // `redact` switches on Nest's own masking of structured fields; strings are handled below.
    super({ ...options, redact: ['authorization', 'headers.authorization'] });
    const known = [...environmentKeys].sort((a, b) => b.length - a.length).map(escape);
    this.secrets = new RegExp(
      [`(?<=bearer\\s+)\\S+`, MANAGED_KEY_PATTERN.source, ...known].join('|'),
      'gi',
    );
  }

  protected override redact(value: unknown): unknown {
    const masked = super.redact(value);
    return typeof masked === 'string' ? this.mask(masked) : masked;
  }

  protected override printStackTrace(stack: string): void {
    super.printStackTrace(this.mask(stack));
  }

  mask(text: string): string {
    return text.replace(this.secrets, CENSOR);
  }
}
