import { defineElement } from '../../ui/define'
import { Toaster } from './toaster'

defineElement('lingxi-toaster', Toaster)

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-toaster': HTMLElement
  }
}
