import type { MusicProvider } from './provider.js'

/**
 * Which provider a music request goes to. A new one is decided at the moment it is made: suno-api
 * (behind its channels) while any suno channel is enabled, else the offline demo composer — so a
 * channel added, disabled or deleted in the console takes effect with the next request, without a
 * restart. A request made already stays with the provider that took it (music_tasks.provider,
 * `demo` or `suno`): its polls and downloads never move to another provider, across restarts too.
 */
export interface MusicChoice {
  /** The provider new requests go to now. */
  current(): Promise<MusicProvider>
  /** The provider that saves its requests as `kind`; undefined when this server runs none by that kind. */
  named(kind: string): MusicProvider | undefined
  /** The provider that made a song (the demo composer's, or an upstream's), to continue it. */
  madeBy(demo: boolean): MusicProvider | undefined
}

export function musicChoice(provider: MusicProvider, demo: MusicProvider | undefined): MusicChoice {
  const all = demo && demo !== provider ? [provider, demo] : [provider]
  return {
    async current() {
      if (!demo || demo === provider || !provider.available) return provider
      return (await provider.available()) ? provider : demo
    },
    named: (kind) => all.find((p) => p.kind === kind),
    madeBy: (isDemo) => all.find((p) => p.demo === isDemo)
  }
}
