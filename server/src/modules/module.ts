import type { AllowanceKind } from '../allowances/kinds.js'
import type { AllowanceRegistry } from '../allowances/registry.js'
import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import type { EventBus } from '../events/bus.js'
import type { Api } from '../http/api.js'
import type { EventStreams } from '../http/sse.js'
import type { JobQueue } from '../jobs/queue.js'
import type { Kv } from '../kv/kv.js'
import type { Logger } from '../logger.js'
import type { ChatRuntime } from '../replies/runtime.js'
import type { Storage } from '../storage/storage.js'

/**
 * What a module is given: the shared infrastructure, never another module. Modules talk to each
 * other only through it — events on the bus (`bus.publish(accountId, …)` reaches the account
 * channel), chat replies through `replies`, rows in the shared database.
 */
export interface ModuleDeps {
  config: Config
  db: Db
  kv: Kv
  logger: Logger
  now: () => number
  bus: EventBus
  jobs: JobQueue
  storage: Storage
  /** The chat reply pipeline (models, generation, token holds): chat, hot news' 解读 and order drafts answer with it. */
  replies: ChatRuntime
  /** Open event streams of this node (heartbeat, session revocation, shutdown). */
  streams: EventStreams
  /** Who may follow and stop a reply stream: every module's `replyCodes`, in list order. */
  replyCodes: readonly string[]
  /** Every allowance kind the module list declares (balances change through allowances/ledger.ts). */
  allowances: AllowanceRegistry
}

/** One module made for one app. Every part is optional but `routes`. */
export interface ModuleInstance {
  /** Registers the module's routes (defineRoute, or api.app for GET/SSE/callbacks). */
  routes(api: Api): void
  /** Defines the module's job handlers (and schedules) on the queue; runs once, before routes. */
  jobs?(queue: JobQueue): void
  /**
   * Before the server listens: ends what the previous run left unfinished and nothing will finish
   * (refunded as the module's policy says); returns how many.
   */
  sweep?(): Promise<number>
  /** Before the server listens, after every sweep: seed data, start schedules. */
  start?(): Promise<void>
  /** Once the server listens, not awaited: picks up the previous run's unfinished work again. */
  resume?(): Promise<void>
  /** At shutdown, after the chat replies have ended and before the job queue closes. */
  close?(): Promise<void>
}

/**
 * A tool on the server. The module list (modules/index.ts) is the only place that names them;
 * app.ts and server.ts loop over it.
 */
export interface ToolModule<Options = undefined, Instance extends ModuleInstance = ModuleInstance> {
  /** The folder name under modules/, and the key of its options in AppDeps.moduleOptions. */
  readonly name: string
  /** Every permission code its routes check. */
  readonly permissionCodes: readonly string[]
  /**
   * The allowance kinds it brings (`defineAllowanceKind`): the registry is the union over the
   * list, so a new kind appears in user/info, the logs, cards and the CLI from here alone.
   */
  readonly allowances?: readonly AllowanceKind[]
  /**
   * The kinds (ids) it charges, refunds or credits, directly or through chat replies — each must be
   * declared by some module of the list — or `all` (recharge cards credit whatever they grant).
   */
  readonly allowanceKinds: readonly string[] | 'all'
  /** Holders of these codes may open the account channel: the module publishes events there. */
  readonly channelCodes?: readonly string[]
  /** Holders of these codes may follow and stop reply streams: the module starts chat replies. */
  readonly replyCodes?: readonly string[]
  /** Makes the module for one app; `options` replace its configured providers and timings (tests). */
  create(deps: ModuleDeps, options?: Options): Instance
}

/** Keeps the literal name, so the list can type each module's options and instance by name. */
export function defineModule<const Name extends string, Options = undefined, Instance extends ModuleInstance = ModuleInstance>(
  module: ToolModule<Options, Instance> & { readonly name: Name }
): ToolModule<Options, Instance> & { readonly name: Name } {
  return module
}
