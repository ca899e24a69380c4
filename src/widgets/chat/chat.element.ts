import { defineElement } from '../../ui/define'
import { Chat } from './chat'

defineElement('lingxi-chat', Chat, { topicId: 'string', externalControls: 'boolean' })

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-chat': HTMLElement & { topicId?: string; externalControls?: boolean }
  }
}
