import { useStore } from '@nanostores/react'
import { atom } from 'nanostores'
import { useEffect, useRef, useState } from 'react'
import { notifyError } from '../../core/api'
import { login, loginWithoutCode, modifyPhone, refreshUser, sendModifyPhoneCode, sendSmsCode } from '../../core/auth'
import { getCookie } from '../../core/cookies'
import { toast } from '../../core/emit'
import { deviceKind, maskPhone } from '../../core/format'
import { MSG_LOGIN_OK } from '../../core/messages'
import { loadPermissions } from '../../core/permissions'
import { shared } from '../../core/shared'
import { $bindPhone, $loginOpen, $systemConfig, $token, closeLogin, openLogin } from '../../core/stores'
import type { CountryEntry } from '../../core/types'
import { bindWechat, wechatAuthorizeUrl } from '../../core/wechat'
import { COOKIE_TOKEN, EVENT_LOGIN, EVENT_WX_LOGIN } from '../../core/wire'
import { siteHref } from '../boot'
import { Dialog } from '../dialog'
import type * as On from '../events'
import { Icon } from '../icons'
import { MD, SM, useMedia } from '../use-media'
import { CountryPicker } from './country-picker'

const CHINA: CountryEntry = { countryName: '中国', countryPinyin: 'zhongguo', phoneCode: '86', countryCode: 'CN' }
const CODE_LENGTH = 4
const RESEND_SECONDS = 60

// Every widget that can ask for a login renders a LoginDialog; the first one mounted on the page
// owns it, so a refused token seen by several widgets still opens exactly one dialog.
const $owners = shared('ui.loginDialog.owners', () => atom<number[]>([]))
const seq = shared('ui.loginDialog.seq', () => ({ n: 0 }))

function useIsOwner(): boolean {
  const [id] = useState(() => ++seq.n)
  const owners = useStore($owners)
  useEffect(() => {
    $owners.set([...$owners.get(), id])
    return () => $owners.set($owners.get().filter((o) => o !== id))
  }, [id])
  return owners[0] === id
}

// A WeChat login that created an account without a phone asks for one: the change-phone flow titled 绑定手机号.

// A redirect login (`?login=`) of a WeChat account without a phone carries an empty phone: bind one.
if (typeof window !== 'undefined') {
  shared('ui.loginDialog.bindOnLogin', () => {
    window.addEventListener(EVENT_LOGIN, (event) => {
      const detail = (event as CustomEvent<{ phone?: unknown } | null>).detail
      if (detail && detail.phone === '') {
        $bindPhone.set(true)
        openLogin('modify-phone')
      }
    })
    return true
  })
}

// What the next wx_login_success completes: a login or a bind (of the account already logged in).
const wechatFlow = shared('ui.loginDialog.wechatFlow', () => ({ bind: false }))

/**
 * The token cookie the popup wrote. A cookie written in another window can reach this one a
 * moment later (Chromium syncs them between processes): wait for it rather than ask without it.
 */
async function popupToken(): Promise<string | null> {
  for (let i = 0; i < 30; i++) {
    const token = getCookie(COOKIE_TOKEN)
    if (token) return token
    await new Promise((r) => setTimeout(r, 100))
  }
  return null
}

/** After a popup WeChat login: the user, 登录成功！, and the phone binding when the account has none. */
async function afterWechatLogin(event: Event): Promise<void> {
  const detail = (event as CustomEvent).detail as { needPhone?: unknown; accountId?: unknown; phone?: unknown } | null | undefined
  const token = await popupToken()
  if (!token) return toast('微信登录没有完成，请重试', 'warning')
  if ($token.get() !== token) {
    // The page-wide handler looked too early: take the session over now.
    $token.set(token)
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
      window.dispatchEvent(new CustomEvent(EVENT_LOGIN, { detail: { accountId: user.accountId, phone: user.phone } }))
      if (detail?.needPhone === true || !user.phone) {
        $bindPhone.set(true)
        openLogin('modify-phone')
      }
    },
    (error: unknown) => notifyError(error)
  )
}

/**
 * 微信登录: WeChat's QR login in a popup on desktop (its answer page stores the session, fires
 * wx_login_success here and closes), the whole page on phones or when popups are blocked (the
 * answer comes back as `?login=` on this page).
 */
export function startWechatLogin(): void {
  wechatFlow.bind = false
  const popup = usePopup() ? openPopup(wechatAuthorizeUrl(currentPath(), true)) : null
  if (!popup) location.assign(wechatAuthorizeUrl(currentPath(), false))
}

/**
 * 绑定微信 for the logged-in account (red packets need its openid): `auth/wechat/bind`, then the
 * same QR login, in a popup on desktop (opened at once, so no blocker stops it) or the whole page.
 */
export async function startWechatBind(): Promise<void> {
  wechatFlow.bind = true
  const popup = usePopup() ? openPopup('about:blank') : null
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
const usePopup = () => deviceKind() !== 'H5' && (typeof matchMedia === 'undefined' || matchMedia(MD).matches)

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

/**
 * The two-step phone login (and, with `$loginOpen` = 'modify-phone', the change-phone flow):
 * a modal from 640 px up, a bottom drawer below. Only one per page is ever shown.
 */
export function LoginDialog() {
  const owner = useIsOwner()
  const mode = useStore($loginOpen)
  const wide = useMedia(SM)
  const modify = mode === 'modify-phone'
  const bind = useStore($bindPhone)
  useEffect(() => {
    if (mode !== 'modify-phone') $bindPhone.set(false)
  }, [mode])
  if (!owner) return null
  return (
    <Dialog
      open={mode !== false}
      onClose={closeLogin}
      title={modify ? (bind ? '绑定手机号' : '请输入新手机号') : '手机号登录'}
      placement={wide ? 'center' : 'bottom'}
      width={440}
      part="dialog"
    >
      {mode && <LoginForm key={mode} modify={modify} bind={bind} />}
    </Dialog>
  )
}

function LoginForm({ modify, bind = false }: { modify: boolean; bind?: boolean }) {
  const [step, setStep] = useState<'phone' | 'code'>('phone')
  const [country, setCountry] = useState(CHINA)
  const [phone, setPhone] = useState('')
  const [agreed, setAgreed] = useState(false)
  const [hint, setHint] = useState('')
  const [code, setCode] = useState('')
  const [codeError, setCodeError] = useState('')
  const [busy, setBusy] = useState(false)
  const [sentTo, setSentTo] = useState('')
  const [countdown, setCountdown] = useState(0)
  const codeRef = useRef<HTMLInputElement>(null)
  const phoneRef = useRef<HTMLInputElement>(null)
  const config = useStore($systemConfig)

  const target = `${country.phoneCode} ${phone.trim()}`
  const waiting = countdown > 0 && sentTo === target

  useEffect(() => {
    if (countdown <= 0) return
    const timer = setTimeout(() => setCountdown((n) => n - 1), 1000)
    return () => clearTimeout(timer)
  }, [countdown])

  useEffect(() => {
    ;(step === 'code' ? codeRef : phoneRef).current?.focus()
  }, [step])

  async function handleGetCode(event?: On.Submit) {
    event?.preventDefault()
    const number = phone.trim()
    if (!number || busy) return
    if (!modify && !agreed) {
      setHint('请勾选同意后再登录')
      return
    }
    if (waiting) {
      setStep('code')
      return
    }
    setBusy(true)
    try {
      if (modify) {
        await sendModifyPhoneCode(country.phoneCode, number)
      } else {
        const { withoutCode } = await sendSmsCode(country.phoneCode, number)
        if (withoutCode === 1) {
          await loginWithoutCode({ enCode: country.phoneCode, phone: number })
          return
        }
      }
      toast('短信验证码已发送', 'success')
      setSentTo(target)
      setCountdown(RESEND_SECONDS)
      setCode('')
      setCodeError('')
      setStep('code')
    } catch (error) {
      notifyError(error)
    } finally {
      setBusy(false)
    }
  }

  async function handleSubmit(event: On.Submit) {
    event.preventDefault()
    const value = code.trim()
    if (!value) {
      setCodeError('验证码不能为空')
      codeRef.current?.focus()
      return
    }
    if (busy) return
    setBusy(true)
    try {
      const input = { enCode: country.phoneCode, phone: phone.trim(), code: value }
      await (modify ? modifyPhone(input) : login(input))
    } catch (error) {
      notifyError(error)
      setCode('')
      codeRef.current?.focus()
    } finally {
      setBusy(false)
    }
  }

  if (step === 'code') {
    return (
      <form onSubmit={handleSubmit} className="flex flex-col gap-4" noValidate>
        <p className="text-muted">
          验证码已发送至{' '}
          <span className="text-ink font-medium" data-testid="masked-phone">
            +{country.phoneCode} {maskPhone(phone.trim())}
          </span>
        </p>
        <button type="button" onClick={() => setStep('phone')} className="self-start text-primary hover:underline">
          更换手机号
        </button>
        <div>
          <label htmlFor="lx-code" className="sr-only">
            验证码
          </label>
          <div className="flex gap-2">
            <input
              ref={codeRef}
              id="lx-code"
              name="code"
              value={code}
              onInput={(e) => {
                setCode((e.target as HTMLInputElement).value.replace(/\s/g, '').slice(0, CODE_LENGTH))
                setCodeError('')
              }}
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={CODE_LENGTH}
              placeholder="请输入 4 位验证码"
              aria-invalid={codeError ? true : undefined}
              aria-describedby={codeError ? 'lx-code-error' : undefined}
              className="flex-1 min-w-0 h-11 px-4 rounded-lg border border-line bg-raised text-ink text-lg tracking-[0.5em] placeholder:tracking-normal placeholder:text-base placeholder:text-muted outline-none focus:border-primary"
            />
            <button
              type="button"
              onClick={() => handleGetCode()}
              disabled={waiting || busy}
              className="h-11 px-3 shrink-0 rounded-lg border border-line text-sm text-primary disabled:text-muted"
            >
              {waiting ? `${countdown}s 后重新获取` : '重新获取'}
            </button>
          </div>
          {codeError && (
            <p id="lx-code-error" role="alert" className="mt-2 text-sm text-danger">
              {codeError}
            </p>
          )}
        </div>
        <button
          type="submit"
          aria-disabled={!code.trim() || busy}
          className={`h-11 rounded-lg bg-primary text-primary-ink font-semibold ${!code.trim() || busy ? 'opacity-50' : 'hover:brightness-110'}`}
        >
          {busy ? '请稍候…' : modify ? '确认修改' : '登录'}
        </button>
      </form>
    )
  }

  const empty = !phone.trim()
  const wechat = (config as { wechatLogin?: boolean } | null)?.wechatLogin !== false
  return (
    <form onSubmit={handleGetCode} className="flex flex-col gap-4" noValidate>
      <CountryPicker value={country} onChange={setCountry}>
        <label htmlFor="lx-phone" className="sr-only">
          手机号
        </label>
        <input
          ref={phoneRef}
          id="lx-phone"
          name="phone"
          type="tel"
          value={phone}
          onInput={(e) => setPhone((e.target as HTMLInputElement).value)}
          inputMode="numeric"
          autoComplete="tel-national"
          maxLength={20}
          placeholder={modify && !bind ? '请输入新手机号' : '请输入手机号'}
          className="flex-1 min-w-0 h-11 px-4 rounded-r-lg border border-line bg-raised text-ink placeholder:text-muted outline-none focus:border-primary"
        />
      </CountryPicker>
      <button
        type="submit"
        aria-disabled={empty || busy}
        className={`h-11 rounded-lg bg-primary text-primary-ink font-semibold ${empty || busy ? 'opacity-50 cursor-default' : 'hover:brightness-110'}`}
      >
        {busy ? '发送中…' : waiting ? `已发送（${countdown}s）` : '获取验证码'}
      </button>
      {!modify && (
        <>
          <label className="flex items-start gap-2 text-sm text-muted select-none">
            <input
              type="checkbox"
              checked={agreed}
              onChange={(e) => {
                setAgreed((e.target as HTMLInputElement).checked)
                setHint('')
              }}
              className="mt-0.5 size-4 accent-[var(--color-primary)]"
            />
            <span>
              我已阅读并同意
              <a href={siteHref('/license.html')} target="_blank" rel="noopener" className="text-primary hover:underline">
                《灵犀服务条款》
              </a>
            </span>
          </label>
          {hint && (
            <p role="alert" className="-mt-2 text-sm text-danger">
              {hint}
            </p>
          )}
          {wechat && (
            <>
              <div className="flex items-center gap-3 text-xs text-muted">
                <span className="h-px flex-1 bg-line" />
                其他方式
                <span className="h-px flex-1 bg-line" />
              </div>
              <button
                type="button"
                onClick={() => {
                  if (!agreed) return setHint('请勾选同意后再登录')
                  startWechatLogin()
                }}
                className="self-center flex items-center gap-2 px-4 h-9 rounded-full border border-line text-sm text-muted hover:text-ink"
              >
                <Icon name="wechat" className="size-5 text-[#2aae67]" />
                微信登录
              </button>
            </>
          )}
        </>
      )}
    </form>
  )
}
