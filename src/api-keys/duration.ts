const UNIT_MS: Record<string, number> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** `90d`, `12h`, `30m`, `2w` in milliseconds; anything else is an error naming the forms. */
export function parseDuration(text: string): number {
  const match = /^([1-9]\d{0,5})([mhdw])$/.exec(text);
  if (!match) {
    throw new Error(`Invalid duration ${JSON.stringify(text)}: use e.g. 30m, 12h, 90d or 2w`);
  }
  return Number(match[1]) * UNIT_MS[match[2]];
}
