/** What a secret is replaced with, in logs and anywhere else text is scrubbed. */
export const REDACTED = '[REDACTED]'

/**
 * Shorter secrets are not scrubbed: replacing every "abc" in every log line would make the logs
 * unreadable and protect nothing (such a value is no secret). Config refuses nothing here; an
 * operator who sets a 3-character key has bigger problems.
 */
const MIN_SECRET_LENGTH = 4

/**
 * The shapes a secret takes in text we log: as configured, JSON-escaped (inside a JSON body we
 * log, or a body logged as a JSON string), URL-encoded (a query string), and base64 (an
 * `Authorization: Basic …` header built from `user:pass`).
 */
function variants(secret: string): string[] {
  return [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret), Buffer.from(secret).toString('base64')]
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * A function that replaces every occurrence of the given secrets (whatever their format: they
 * are matched literally, not by a pattern such as `sk-…`) with REDACTED.
 */
export function createRedactor(secrets: Iterable<string | undefined>): (text: string) => string {
  const all = new Set<string>()
  for (const secret of secrets) {
    if (typeof secret !== 'string') continue
    for (const variant of variants(secret.trim())) if (variant.length >= MIN_SECRET_LENGTH) all.add(variant)
  }
  if (all.size === 0) return (text) => text
  // Longest first, so a secret that contains another one is replaced whole.
  const pattern = new RegExp(
    [...all]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|'),
    'g'
  )
  return (text) => text.replace(pattern, REDACTED)
}

/** Keys of well-known formats and bearer tokens, for text whose secrets we do not know in advance. */
export function redactKeyPatterns(text: string): string {
  return text.replace(/\b(sk|key|token)-[A-Za-z0-9_-]{6,}/gi, '$1-***').replace(/Bearer\s+\S+/gi, 'Bearer ***')
}
