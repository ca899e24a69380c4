import { defineElement } from '../../ui/define'
import { Roles } from './roles'

defineElement('lingxi-roles', Roles)

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-roles': HTMLElement
  }
}
