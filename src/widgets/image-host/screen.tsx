import '../../widgets/image-host/image-host.element'
import type { ScreenProps } from './types'

/** /imgSee: the image host element (upload, my images, copy links, preview, delete). */
export default function ImageHostScreen(_: ScreenProps) {
  return <lingxi-image-host />
}
