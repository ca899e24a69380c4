import type { ScreenProps } from '../manifest'
import './image-host.element'

/** /imgSee: the image host element (upload, my images, copy links, preview, delete). */
export default function ImageHostScreen(_: ScreenProps) {
  return <lingxi-image-host />
}
