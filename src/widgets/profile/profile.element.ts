import { defineElement } from '../../ui/define'
import { Profile } from './profile'

defineElement('lingxi-profile', Profile)

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-profile': HTMLElement
  }
}
