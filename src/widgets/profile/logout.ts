import { logout } from '../../core/auth'
import { confirm } from '../../core/emit'

/** Logs out after the person confirms (the menu's and the panel's 退出登录). */
export async function handleLogout() {
  if (await confirm({ title: '退出登录', message: '确定要退出当前账号吗？', confirmText: '退出' })) await logout()
}
