import type { Anchor, BootConfig } from '../core/anchor'

/** The configuration the loader read from its script tag (empty when there was no loader). */
export function getBoot(): Partial<BootConfig> {
  const anchor = (globalThis as unknown as Record<symbol, Anchor | undefined>)[Symbol.for('lingxi.v1')]
  return anchor?.boot ?? {}
}
