import { defineElement, type LingxiElement } from '../ui/define'
import { App } from './app'

defineElement('lingxi-app', App)

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-app': LingxiElement
  }
}
