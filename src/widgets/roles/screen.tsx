import '../../widgets/roles/roles.element'
import type { ScreenProps } from './types'

/** /role: the role repository element; 开始对话 asks the host to go to /chat (lingxi-navigate). */
export default function RolesScreen(_: ScreenProps) {
  return <lingxi-roles />
}
