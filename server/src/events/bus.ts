/**
 * Events that outlive the request that caused them: the numbered, replayable event streams of
 * chat replies, the account channel (every event of an account, for one connection per page),
 * and a control channel that reaches whichever node runs a generation.
 *
 * In memory for a single process; in Redis (streams for replay, pub/sub for fan-out and control)
 * when several API nodes share the work.
 */

/** One event of a replayable stream; `data` is JSON text, written to the wire as is. */
export interface StreamEvent {
  /** 1, 2, 3 … within the stream. */
  id: number
  event: string
  data: string
  /** The stream's last event: followers end after it. */
  final: boolean
}

export interface StreamListener {
  event(e: StreamEvent): void
  /** After the final event, or when the bus closes. */
  end(): void
}

export interface Subscription {
  close(): void
}

export interface FollowResult extends Subscription {
  /** False when the bus holds nothing for the stream (never started, expired, or lost with a restart). */
  known: boolean
}

/** An event for an account's channel; `data` is serialised once by the bus. */
export interface AccountEvent {
  event: string
  data: Record<string, unknown>
}

export type AccountListener = (event: string, data: string) => void

/**
 * Requests for the node that runs a job, wherever it is (`stop`), and for every node (`revoke`:
 * close the open streams of these sessions, which were just revoked, auth/session-streams.ts, and
 * forget them, auth/session-cache.ts; `account`: these accounts changed, read their sessions again;
 * `balances`: these accounts' balances changed, read them again, allowances/balance-cache.ts;
 * `words`: the moderation word list changed).
 */
export type ControlMessage =
  | { type: 'stop'; stream: string }
  | { type: 'revoke'; sessionIds: number[] }
  | { type: 'account'; accountIds: string[] }
  | { type: 'balances'; accountIds: string[] }
  /** The moderation word list changed in the database: rebuild the matcher (moderation/word-store.ts). */
  | { type: 'words' }

export interface BusStats {
  /** Stream followers currently attached on this node. */
  followers: number
  /** Account channel listeners on this node. */
  accountListeners: number
  /** Control listeners on this node. */
  controlListeners: number
}

export interface EventBus {
  /** Appends the next event of a stream and returns its id. The stream is kept `retentionMs` after its last event. */
  append(stream: string, event: string, data: string, final?: boolean): Promise<number>
  /**
   * Delivers the events after `afterId`, then live ones, in order and each once, until the final
   * event or close(). Resolves once the replay has been delivered.
   */
  follow(stream: string, afterId: number, listener: StreamListener): Promise<FollowResult>
  /** The last event of a stream, if the bus still has it. */
  last(stream: string): Promise<StreamEvent | undefined>
  /** Fan-out to whoever listens to the account now; no replay. */
  publish(accountId: string, event: AccountEvent): Promise<void>
  subscribe(accountId: string, listener: AccountListener): Promise<Subscription>
  control(message: ControlMessage): Promise<void>
  onControl(listener: (message: ControlMessage) => void): Subscription
  stats(): BusStats
  close(): Promise<void>
}

/** Events are kept at least this long after a stream's last event (API.md: at least 10 minutes). */
export const DEFAULT_RETENTION_MS = 10 * 60_000
