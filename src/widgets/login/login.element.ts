import { defineElement } from '../../ui/define'
import { Login } from './login'

defineElement('lingxi-login', Login, { button: 'boolean' })

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-login': HTMLElement & { button?: boolean }
  }
}
