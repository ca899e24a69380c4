import type { ScreenProps } from '../manifest'
import './roles.element'

/** /role: the role repository element; 开始对话 asks the host to go to /chat (lingxi-navigate). */
export default function RolesScreen(_: ScreenProps) {
  return <lingxi-roles />
}
