/**
 * Short-lived counters and locks (SMS resend window, hourly caps). In memory for a single
 * machine; in Redis when several API nodes must agree.
 *
 * Expiry follows the app's clock (`now` of the deps), not the store's, so tests that move
 * time see the same windows with either implementation.
 */
export interface Kv {
  /** Creates the key for ttlMs unless it exists; true when this call created it. */
  setIfAbsent(key: string, ttlMs: number): Promise<boolean>
  /** Adds one and returns the new count; the first increment starts a ttlMs window. */
  incr(key: string, ttlMs: number): Promise<number>
  /** Milliseconds until the key expires; 0 when it does not exist. */
  ttl(key: string): Promise<number>
  del(key: string): Promise<void>
  close(): Promise<void>
}
