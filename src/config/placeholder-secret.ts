/** Whether a secret still carries an example's placeholder: change-me, changeme, CHANGE_ME. */
export function isPlaceholder(secret: string): boolean {
  return /change[-_]?me/i.test(secret);
}
