import { defineElement } from '../../ui/define'
import { ImageHost } from './image-host'

defineElement('lingxi-image-host', ImageHost)

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-image-host': HTMLElement
  }
}
