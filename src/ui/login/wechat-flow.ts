import { notifyError } from '../../core/api'
import { refreshUser } from '../../core/auth'
import { announce, toast } from '../../core/emit'
import { deviceKind } from '../../core/format'
import { MSG_LOGIN_OK } from '../../core/messages'
import { loadPermissions } from '../../core/permissions'
import { shared } from '../../core/shared'
import { $bindPhone, $token, closeLogin, markSession, openLogin } from '../../core/stores'
import { bindWechat, wechatAuthorizeUrl } from '../../core/wechat'
import { EVENT_LOGIN, EVENT_WX_LOGIN } from '../../core/wire'
import { MD } from '../use-media'

// WeChat login and binding, started from the login dialog (微信登录) or a red packet (绑定微信):
// a popup on desktop, the whole page on phones; the answer page tells this one by wx_login_success.

// A WeChat login that created an account without a phone asks for one: the change-phone flow titled 绑定手机号.

// A redirect login (`?login=`) of a WeChat account without a phone carries an empty phone: bind one.
// Not a partner's user (`via: 'partner'`, src/core/identify.ts): the partner vouches for them.
if (typeof window !== 'undefined') {
  shared('ui.loginDialog.bindOnLogin', () => {
    window.addEventListener(EVENT_LOGIN, (event) => {
      const detail = (event as CustomEvent<{ phone?: unknown; via?: unknown } | null>).detail
      if (detail && detail.phone === '' && !detail.via) {
        $bindPhone.set(true)
        openLogin('modify-phone')
      }
    })
    return true
  })
}

// What the next wx_login_success completes: a login or a bind (of the account already logged in).
const wechatFlow = shared('ui.loginDialog.wechatFlow', () => ({ bind: false }))

/** After a popup WeChat login: the user, 登录成功！, and the phone binding when the account has none. */
async function afterWechatLogin(event: Event): Promise<void> {
  const detail = (event as CustomEvent).detail as { needPhone?: unknown; accountId?: unknown; phone?: unknown } | null | undefined
  if (!$token.get()) {
    // The page-wide handler has not run (another bundle's listeners): the popup set the session cookie.
    markSession()
    closeLogin()
    loadPermissions().catch(notifyError)
  }
  if (wechatFlow.bind) {
    wechatFlow.bind = false
    refreshUser().then(() => toast('微信绑定成功', 'success'), notifyError)
    return
  }
  refreshUser().then(
    (user) => {
      toast(MSG_LOGIN_OK, 'success')
      announce(EVENT_LOGIN, { accountId: user.accountId, phone: user.phone })
      if (detail?.needPhone === true || !user.phone) {
        $bindPhone.set(true)
        openLogin('modify-phone')
      }
    },
    (error: unknown) => notifyError(error)
  )
}

/**
 * 微信登录: WeChat's QR login in a popup on desktop (its answer page gets the session cookie, fires
 * wx_login_success here and closes), the whole page on phones or when popups are blocked (the
 * answer comes back as `?login=` on this page).
 */
export function startWechatLogin(): void {
  wechatFlow.bind = false
  const popup = wantsPopup() ? openPopup(wechatAuthorizeUrl(currentPath(), true)) : null
  if (!popup) location.assign(wechatAuthorizeUrl(currentPath(), false))
}

/**
 * 绑定微信 for the logged-in account (red packets need its openid): `auth/wechat/bind`, then the
 * same QR login, in a popup on desktop (opened at once, so no blocker stops it) or the whole page.
 */
export async function startWechatBind(): Promise<void> {
  wechatFlow.bind = true
  const popup = wantsPopup() ? openPopup('about:blank') : null
  try {
    const url = await bindWechat(currentPath(), Boolean(popup))
    if (popup) popup.location.href = url
    else location.assign(url)
  } catch (error) {
    popup?.close()
    wechatFlow.bind = false
    notifyError(error)
  }
}

const currentPath = () => `${location.pathname}${location.search}`
const wantsPopup = () => deviceKind() !== 'H5' && (typeof matchMedia === 'undefined' || matchMedia(MD).matches)

function openPopup(url: string): Window | null {
  const width = 720
  const height = 640
  const left = Math.max(0, Math.round((screen.width - width) / 2))
  const top = Math.max(0, Math.round((screen.height - height) / 2))
  const popup = window.open(url, 'lingxi-wechat-login', `popup,width=${width},height=${height},left=${left},top=${top}`)
  if (popup) {
    shared('ui.loginDialog.wechatListener', () => {
      window.addEventListener(EVENT_WX_LOGIN, (event) => void afterWechatLogin(event))
      return true
    })
  }
  return popup
}
