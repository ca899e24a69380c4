import { useStore } from '@nanostores/react'
import { atom } from 'nanostores'
import { useEffect, useRef, useState } from 'react'
import {
  $loginOpen,
  closeLogin,
  login,
  loginWithoutCode,
  maskPhone,
  modifyPhone,
  notifyError,
  shared,
  sendModifyPhoneCode,
  sendSmsCode,
  toast,
  type CountryEntry,
} from '../../core'
import { siteHref } from '../boot'
import { Dialog } from '../dialog'
import { Icon } from '../icons'
import { SM, useMedia } from '../use-media'
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

/**
 * The two-step phone login (and, with `$loginOpen` = 'modify-phone', the change-phone flow):
 * a modal from 640 px up, a bottom drawer below. Only one per page is ever shown.
 */
export function LoginDialog() {
  const owner = useIsOwner()
  const mode = useStore($loginOpen)
  const wide = useMedia(SM)
  const modify = mode === 'modify-phone'
  if (!owner) return null
  return (
    <Dialog
      open={mode !== false}
      onClose={closeLogin}
      title={modify ? '请输入新手机号' : '手机号登录'}
      placement={wide ? 'center' : 'bottom'}
      width={440}
      part="dialog"
    >
      {mode && <LoginForm key={mode} modify={modify} />}
    </Dialog>
  )
}

function LoginForm({ modify }: { modify: boolean }) {
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

  async function handleGetCode(event?: Event) {
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

  async function handleSubmit(event: Event) {
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
      <form onSubmit={handleSubmit as never} className="flex flex-col gap-4" noValidate>
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
  return (
    <form onSubmit={handleGetCode as never} className="flex flex-col gap-4" noValidate>
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
          placeholder={modify ? '请输入新手机号' : '请输入手机号'}
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
          <div className="flex items-center gap-3 text-xs text-muted">
            <span className="h-px flex-1 bg-line" />
            其他方式
            <span className="h-px flex-1 bg-line" />
          </div>
          <button
            type="button"
            onClick={() => toast('微信登录即将开放，请先使用手机号登录', 'info')}
            className="self-center flex items-center gap-2 px-4 h-9 rounded-full border border-line text-sm text-muted hover:text-ink"
          >
            <Icon name="wechat" className="size-5 text-[#2aae67]" />
            微信登录
          </button>
        </>
      )}
    </form>
  )
}
