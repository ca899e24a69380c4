import { useStore } from '@nanostores/react'
import { atom } from 'nanostores'
import { useEffect, useRef, useState } from 'react'
import { notifyError } from '../../core/api'
import { login, loginWithoutCode, modifyPhone, sendModifyPhoneCode, sendSmsCode } from '../../core/auth'
import { toast } from '../../core/emit'
import { maskPhone } from '../../core/format'
import { MSG_CODE_REQUIRED } from '../../core/messages'
import { shared } from '../../core/shared'
import { $bindPhone, $loginOpen, $systemConfig, closeLogin } from '../../core/stores'
import type { CountryEntry } from '../../core/types'
import { siteHref } from '../boot'
import { Dialog } from '../dialog'
import type * as On from '../events'
import { $english, tr } from '../i18n'
import { Icon } from '../icons'
import { SM, useMedia } from '../use-media'
import { CountryPicker } from './country-picker'
import { startWechatLogin } from './wechat-flow'

// The red packet's 绑定微信 loads the dialog's chunk and starts the binding from it.
export { startWechatBind } from './wechat-flow'

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
  useStore($english)
  useEffect(() => {
    if (mode !== 'modify-phone') $bindPhone.set(false)
  }, [mode])
  if (!owner) return null
  return (
    <Dialog
      open={mode !== false}
      onClose={closeLogin}
      title={tr(modify ? (bind ? '绑定手机号' : '请输入新手机号') : '手机号登录')}
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
      setHint(tr('请勾选同意后再登录'))
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
      setCodeError(tr(MSG_CODE_REQUIRED))
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
          {tr('验证码已发送至')}{' '}
          <span className="text-ink font-medium" data-testid="masked-phone">
            +{country.phoneCode} {maskPhone(phone.trim())}
          </span>
        </p>
        <button type="button" onClick={() => setStep('phone')} className="self-start text-primary hover:underline">
          {tr('更换手机号')}
        </button>
        <div>
          <label htmlFor="lx-code" className="sr-only">
            {tr('验证码')}
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
              placeholder={tr('请输入 4 位验证码')}
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
              {waiting ? tr('{n}s 后重新获取').replace('{n}', String(countdown)) : tr('重新获取')}
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
          {tr(busy ? '请稍候…' : modify ? '确认修改' : '登录')}
        </button>
      </form>
    )
  }

  const empty = !phone.trim()
  const wechat = config?.wechatLogin !== false
  return (
    <form onSubmit={handleGetCode} className="flex flex-col gap-4" noValidate>
      <CountryPicker value={country} onChange={setCountry}>
        <label htmlFor="lx-phone" className="sr-only">
          {tr('手机号')}
        </label>
        <input
          ref={phoneRef}
          data-autofocus
          id="lx-phone"
          name="phone"
          type="tel"
          value={phone}
          onInput={(e) => setPhone((e.target as HTMLInputElement).value)}
          inputMode="numeric"
          autoComplete="tel-national"
          maxLength={20}
          placeholder={tr(modify && !bind ? '请输入新手机号' : '请输入手机号')}
          className="flex-1 min-w-0 h-11 px-4 rounded-r-lg border border-line bg-raised text-ink placeholder:text-muted outline-none focus:border-primary"
        />
      </CountryPicker>
      <button
        type="submit"
        aria-disabled={empty || busy}
        className={`h-11 rounded-lg bg-primary text-primary-ink font-semibold ${empty || busy ? 'opacity-50 cursor-default' : 'hover:brightness-110'}`}
      >
        {busy ? tr('发送中…') : waiting ? tr('已发送（{n}s）').replace('{n}', String(countdown)) : tr('获取验证码')}
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
              {tr('我已阅读并同意')}
              <a href={siteHref('/license.html')} target="_blank" rel="noopener" className="text-primary font-medium hover:underline">
                {tr('《灵犀服务条款》')}
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
                {tr('其他方式')}
                <span className="h-px flex-1 bg-line" />
              </div>
              <button
                type="button"
                onClick={() => {
                  if (!agreed) return setHint(tr('请勾选同意后再登录'))
                  startWechatLogin()
                }}
                className="self-center flex items-center gap-2 px-4 h-9 rounded-full border border-line text-sm text-muted hover:text-ink"
              >
                <Icon name="wechat" className="size-5 text-[#2aae67]" />
                {tr('微信登录')}
              </button>
            </>
          )}
        </>
      )}
    </form>
  )
}
