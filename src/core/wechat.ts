import { request } from './api'
import { $config } from './config'

// WeChat login and binding (docs/orders-wire.md, WeChat login). Kept apart from the order
// platforms so the login dialog does not pull them in.

/**
 * Binds WeChat to the logged-in account (needed for red packets when the account was made with a
 * phone): resolves the address to open (valid 10 minutes, once). `POST /auth/wechat/bind`.
 */
export async function bindWechat(redirect: string, popup: boolean): Promise<string> {
  const { authorizeUrl } = await request<{ authorizeUrl: string }>('/auth/wechat/bind', { redirect, popup })
  return authorizeUrl
}

/** The address that starts a WeChat login (`popup`: the answer page notifies this page and closes). */
export function wechatAuthorizeUrl(redirect: string, popup: boolean): string {
  const query = new URLSearchParams({ redirect, popup: popup ? '1' : '0' })
  return `${$config.get().apiBase}/api/v1/auth/wechat/authorize?${query}`
}
