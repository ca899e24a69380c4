import '../../widgets/roles/roles.element'

/** /role: the role repository element; 开始对话 asks the host to go to /chat (lingxi-navigate). */
export default function RolesScreen() {
  return <lingxi-roles />
}
