import type { ScreenProps } from '../manifest'
import './music.element'

/**
 * /music: the music element. The song keeps playing when the person goes to another route: the
 * audio belongs to the page (actions.ts), and the host shows `MusicBar` meanwhile (the manifest's `bar`).
 */
export default function MusicScreen({ search }: ScreenProps) {
  // `/music?share={token}`: a shared song's read-only page (the server's sharePath), for anyone.
  const share = new URLSearchParams(search).get('share')
  return share ? <lingxi-music share={share} /> : <lingxi-music />
}

/** The compact player the host shows on other routes while a song is current (loads this chunk only then). */
export function MusicBar() {
  // `mini` as a property (true): an empty string would be a false boolean property.
  return <lingxi-music mini />
}
