import type { PaintingProvider } from './providers/provider.js'
import type { PaintingRuntimeOptions } from './types.js'

/**
 * Which painter a task goes to. A new task is decided at the moment it is made: the kind's upstream
 * (midjourney-proxy, AUTOMATIC1111 behind their channels) while any channel of the kind is enabled,
 * else the offline demo painter — so a channel added, disabled or deleted in the console takes
 * effect with the next task, without a restart. A task made already stays with the painter that
 * took it (the name saved on it: `demo`, `midjourney-proxy`, `a1111`): its drawing, polls, actions
 * and callbacks never move to another painter, across restarts too.
 */
type Painters = Pick<PaintingRuntimeOptions, 'mj' | 'sd' | 'demo'>

const configured = (options: Painters, kind: string) => (kind === 'sd' ? options.sd : options.mj)

/** The painter a new task of the kind goes to now. */
export async function currentPainter(options: Painters, kind: string): Promise<PaintingProvider> {
  const upstream = configured(options, kind)
  if (!options.demo || upstream === options.demo || !upstream.available) return upstream
  return (await upstream.available()) ? upstream : options.demo
}

/** The painter of this kind that saves tasks under `name`; undefined when this server runs none by that name. */
export function painterNamed(options: Painters, kind: string, name: string): PaintingProvider | undefined {
  const upstream = configured(options, kind)
  if (upstream.name === name) return upstream
  return options.demo?.name === name ? options.demo : undefined
}

/** The painters that draw in this process (no `fetch`: nothing upstream to poll), the demo painter among them. */
export const inProcessPainters = (options: Painters) => [...new Set([options.mj, options.sd, ...(options.demo ? [options.demo] : [])])].filter((p) => !p.fetch)
