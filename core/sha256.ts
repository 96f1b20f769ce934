/** A SHA-256 as content-addressed stores name things here (formulas, proofs): 64 lower-case hex digits. */

export const SHA256_HEX_RE = /^[0-9a-f]{64}$/;

/** Whether `name` is a SHA-256 in that form. */
export function isSha256Hex(name: string): boolean {
  return SHA256_HEX_RE.test(name);
}
