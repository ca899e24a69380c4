import { useStore } from '@nanostores/react'
import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react'
import {
  $loginOpen,
  $token,
  $user,
  ApiError,
  BALANCE_KINDS,
  balanceKindLabel,
  confirm,
  EVENT_NAVIGATE,
  formatAllowance,
  formatAmount,
  formatCount,
  formatTime,
  loadBalanceLog,
  loadRechargeLog,
  LOG_PAGE_SIZE,
  logout,
  maskPhone,
  NICKNAME_MAX,
  notifyError,
  openLogin,
  redeemCard,
  refreshUser,
  saveProfile,
  toast,
  UPLOAD_ACCEPT,
  uploadImage,
  validateCardCode,
  validateNickName,
  UNAUTHORIZED_CODES,
  type BalanceLogEntry,
  type LoginUser,
  type Paged,
  type RechargeLogEntry,
} from '../../core'
import { emit } from '../../core/emit'
import type { ElementProps } from '../../ui/define'
import { Icon, Spinner } from '../../ui/icons'

const LoginDialog = lazy(() => import('../../ui/login/login-dialog').then((m) => ({ default: m.LoginDialog })))

export type UserCenterTab = 'general' | 'card' | 'setting'

export const USER_CENTER_TABS: { id: UserCenterTab; label: string }[] = [
  { id: 'general', label: '账户总览' },
  { id: 'card', label: '卡密兑换' },
  { id: 'setting', label: '个人设置' },
]

const isTab = (t: unknown): t is UserCenterTab => USER_CENTER_TABS.some((x) => x.id === t)

export interface UserCenterProps extends ElementProps {
  /** general | card | setting (default general). */
  tab?: string
}

/**
 * @summary The personal center: 账户总览 (allowances, 已过期 when the account has expired, the
 * balance log), 卡密兑换 (redeem a recharge card, the recharge log) and 个人设置 (nickname, avatar,
 * change phone, log out). Logged out, a login prompt.
 * @event lingxi-navigate - (window) A tab was chosen: detail `{path: '/usercenter?id=<tab>'}` (the host page puts it in the address).
 * @event lingxi-confirm - (window) Asks before logging out.
 * @csspart tabs - The tab bar.
 * @cssproperty --lingxi-primary - Accent colour (default #fbab00).
 */
export function UserCenter({ tab }: UserCenterProps) {
  const token = useStore($token)
  const user = useStore($user)
  const loginOpen = useStore($loginOpen)
  return (
    <>
      {token && user ? (
        <Center tab={isTab(tab) ? tab : 'general'} user={user} />
      ) : token ? (
        <Loader />
      ) : (
        <div className="py-16 flex flex-col items-center gap-2 text-center">
          <span className="size-14 grid place-items-center rounded-2xl bg-primary/15 text-primary">
            <Icon name="user" className="size-7" />
          </span>
          <h2 className="mt-2 text-lg font-semibold">个人中心</h2>
          <p className="text-sm text-muted">登录后查看额度、兑换卡密与修改资料。</p>
          <button type="button" onClick={() => openLogin()} className="mt-3 h-10 px-6 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110">
            登录
          </button>
        </div>
      )}
      {(!token || loginOpen) && (
        <Suspense fallback={null}>
          <LoginDialog />
        </Suspense>
      )}
    </>
  )
}

/** Logged in, the user not loaded yet (a page embedding only this element). */
function Loader() {
  useEffect(() => {
    refreshUser().catch(notifyError)
  }, [])
  return <Spinner label="加载账户" />
}

function Center({ tab, user }: { tab: UserCenterTab; user: LoginUser }) {
  const [current, setCurrent] = useState<UserCenterTab>(tab)
  const tabsRef = useRef<HTMLDivElement>(null)
  useEffect(() => setCurrent(tab), [tab])

  // Fresh balances whenever the center is opened.
  useEffect(() => {
    refreshUser().catch(notifyError)
  }, [])

  function choose(next: UserCenterTab, focus = false) {
    setCurrent(next)
    emit(EVENT_NAVIGATE, { path: `/usercenter?id=${next}` })
    if (focus) queueMicrotask(() => tabsRef.current?.querySelector<HTMLElement>(`#lx-uc-tab-${next}`)?.focus())
  }

  function onTabKey(event: KeyboardEvent) {
    const at = USER_CENTER_TABS.findIndex((t) => t.id === current)
    let next = -1
    if (event.key === 'ArrowRight') next = (at + 1) % USER_CENTER_TABS.length
    else if (event.key === 'ArrowLeft') next = (at - 1 + USER_CENTER_TABS.length) % USER_CENTER_TABS.length
    else if (event.key === 'Home') next = 0
    else if (event.key === 'End') next = USER_CENTER_TABS.length - 1
    if (next < 0) return
    event.preventDefault()
    choose(USER_CENTER_TABS[next]!.id, true)
  }

  return (
    <section aria-labelledby="lx-uc-title" className="max-w-4xl mx-auto">
      <h2 id="lx-uc-title" className="sr-only sm:not-sr-only sm:mb-4 text-2xl font-bold">
        个人中心
      </h2>
      <div className="flex items-center gap-4">
        <Avatar user={user} size="size-14" />
        <div className="min-w-0">
          <p data-testid="uc-nickname" className="text-xl font-bold truncate">
            {user.nickName || '灵犀用户'}
          </p>
          <p className="text-sm text-muted flex items-center gap-2">
            <span data-testid="uc-phone">{maskPhone(user.phone)}</span>
            <span className={`px-2 rounded-full text-xs ${user.state === 0 ? 'bg-danger/15 text-danger' : 'bg-ok/15 text-ok'}`}>{user.state === 0 ? '已过期' : '有效'}</span>
          </p>
        </div>
      </div>
      <div ref={tabsRef} role="tablist" part="tabs" aria-label="个人中心" onKeyDown={onTabKey as never} className="mt-5 flex border-b border-line overflow-x-auto">
        {USER_CENTER_TABS.map((t) => (
          <button
            key={t.id}
            id={`lx-uc-tab-${t.id}`}
            type="button"
            role="tab"
            aria-selected={t.id === current}
            aria-controls={`lx-uc-panel-${t.id}`}
            tabIndex={t.id === current ? 0 : -1}
            onClick={() => choose(t.id)}
            className={`px-4 h-11 shrink-0 border-b-2 -mb-px whitespace-nowrap ${t.id === current ? 'border-primary text-primary font-medium' : 'border-transparent text-muted hover:text-ink'}`}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`lx-uc-panel-${current}`} aria-labelledby={`lx-uc-tab-${current}`} tabIndex={0} className="pt-6 outline-none">
        {current === 'general' && <General user={user} />}
        {current === 'card' && <Card />}
        {current === 'setting' && <Setting user={user} />}
      </div>
    </section>
  )
}

function General({ user }: { user: LoginUser }) {
  const expired = user.state === 0
  return (
    <>
      <ul aria-label="剩余额度" className="grid gap-3 grid-cols-3">
        {BALANCE_KINDS.map((k) => (
          <li key={k.kind} className="rounded-card border border-line bg-surface p-3 sm:p-5">
            <p className="text-xs sm:text-sm text-muted">{k.label}</p>
            <p data-testid={`allowance-${k.kind}`} className={`mt-1 sm:mt-2 text-xl sm:text-3xl font-bold ${expired ? 'text-danger' : 'text-primary'}`}>
              {formatAllowance(user[k.field], user.state)}
            </p>
            {!expired && <p className="mt-0.5 text-xs text-muted">{k.unit}</p>}
          </li>
        ))}
      </ul>
      {expired && <p className="mt-3 text-sm text-danger">账号已过期，工具暂不可用。可在「卡密兑换」中充值，或联系管理员。</p>}
      <h3 className="mt-8 mb-3 font-semibold">额度明细</h3>
      <Log<BalanceLogEntry>
        label="额度明细"
        load={loadBalanceLog}
        deps={[user.tokens, user.mjCount, user.sunoCount]}
        empty="暂无额度变动记录"
        row={(e) => (
          <>
            <div className="min-w-0 flex-1">
              <p className="text-sm truncate" title={e.reason}>
                {e.reason}
              </p>
              <p className="text-xs text-muted">
                {formatTime(e.createTime)} · {balanceKindLabel(e.kind)}
              </p>
            </div>
            <div className="text-right shrink-0">
              <p className={`text-sm font-semibold ${e.amount < 0 ? 'text-ink' : 'text-ok'}`}>{formatAmount(e.amount)}</p>
              <p className="text-xs text-muted">余 {formatCount(e.balance)}</p>
            </div>
          </>
        )}
      />
    </>
  )
}

function Card() {
  const [code, setCode] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [version, setVersion] = useState(0)
  const inputRef = useRef<HTMLInputElement>(null)

  async function submit(event: Event) {
    event.preventDefault()
    if (busy) return
    // The field itself: a submit right after typing must not see the state of the render before.
    const code = inputRef.current?.value ?? ''
    const problem = validateCardCode(code)
    setError(problem)
    if (problem) return
    setBusy(true)
    try {
      const b = await redeemCard(code)
      setCode('')
      toast(`兑换成功！当前对话额度 ${formatCount(b.tokens)}，绘画 ${formatCount(b.mjCount)} 次，音乐 ${formatCount(b.sunoCount)} 次`, 'success')
      setVersion((v) => v + 1)
    } catch (e) {
      // A refused card is said next to the field; no answer or a lost session goes the usual way.
      if (e instanceof ApiError && !UNAUTHORIZED_CODES.includes(e.code)) setError(e.message)
      else notifyError(e)
    } finally {
      setBusy(false)
    }
  }

  return (
    <>
      <form onSubmit={submit as never} noValidate className="rounded-card border border-line bg-surface p-4 sm:p-5">
        <label htmlFor="lx-card-code" className="block font-semibold">
          兑换卡密
        </label>
        <p className="mt-1 text-sm text-muted">输入购买或获赠的充值卡密，额度立即到账。每张卡密只能使用一次。</p>
        <div className="mt-3 flex flex-col sm:flex-row gap-2">
          <input
            id="lx-card-code"
            ref={inputRef}
            value={code}
            onInput={(e) => {
              setCode((e.target as HTMLInputElement).value)
              setError(null)
            }}
            autoComplete="off"
            spellCheck={false}
            maxLength={64}
            placeholder="请输入卡密"
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'lx-card-error' : undefined}
            className="w-full sm:flex-1 min-w-0 h-11 px-3 rounded-lg border border-line bg-raised text-ink placeholder:text-muted outline-none focus:border-primary font-mono"
          />
          <button type="submit" aria-disabled={busy} className="h-11 px-6 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110">
            {busy ? '兑换中…' : '立即兑换'}
          </button>
        </div>
        {error && (
          <p id="lx-card-error" role="alert" className="mt-2 text-sm text-danger">
            {error}
          </p>
        )}
      </form>
      <h3 className="mt-8 mb-3 font-semibold">兑换记录</h3>
      <Log<RechargeLogEntry>
        label="兑换记录"
        load={loadRechargeLog}
        deps={[version]}
        empty="暂无兑换记录"
        row={(e) => (
          <>
            <div className="min-w-0 flex-1">
              <p className="text-sm font-mono truncate">{e.cardCode}</p>
              <p className="text-xs text-muted">{formatTime(e.createTime)}</p>
            </div>
            <p className="text-sm text-ok text-right">
              {[
                e.tokens ? `对话 +${formatCount(e.tokens)}` : '',
                e.mjCount ? `绘画 +${formatCount(e.mjCount)}` : '',
                e.sunoCount ? `音乐 +${formatCount(e.sunoCount)}` : '',
              ]
                .filter(Boolean)
                .join('，') || '—'}
            </p>
          </>
        )}
      />
    </>
  )
}

/** A paged log: a page at a time with 上一页/下一页. */
function Log<T extends { id: string }>({
  label,
  load,
  deps,
  empty,
  row,
}: {
  label: string
  load: (pageNum: number, pageSize?: number) => Promise<Paged<T>>
  deps: unknown[]
  empty: string
  row: (entry: T) => ReactNode
}) {
  const [pageNum, setPageNum] = useState(1)
  const [page, setPage] = useState<Paged<T> | null>(null)
  const [loading, setLoading] = useState(false)
  const latest = useRef(0)

  useEffect(() => {
    const ticket = ++latest.current
    setLoading(true)
    load(pageNum, LOG_PAGE_SIZE)
      .then((answer) => {
        if (ticket === latest.current) setPage(answer)
      })
      .catch((e) => ticket === latest.current && notifyError(e))
      .finally(() => ticket === latest.current && setLoading(false))
  }, [pageNum, ...deps])

  const pages = page ? Math.max(1, Math.ceil(page.total / LOG_PAGE_SIZE)) : 1
  if (!page) return loading ? <Spinner label={`加载${label}`} /> : null
  if (page.total === 0) return <p className="py-10 text-center text-sm text-muted">{empty}</p>
  return (
    <div>
      <ul aria-label={label} aria-busy={loading || undefined} className="rounded-card border border-line bg-surface divide-y divide-line">
        {page.list.map((entry) => (
          <li key={entry.id} data-testid="log-row" className="flex items-center gap-3 px-4 py-3">
            {row(entry)}
          </li>
        ))}
      </ul>
      {pages > 1 && (
        <nav aria-label={`${label}分页`} className="mt-3 flex items-center justify-center gap-3 text-sm">
          <button
            type="button"
            onClick={() => setPageNum((n) => Math.max(1, n - 1))}
            disabled={pageNum <= 1}
            className="h-9 px-4 rounded-lg border border-line disabled:opacity-40 hover:enabled:border-primary"
          >
            上一页
          </button>
          <span aria-live="polite" className="text-muted">
            第 {pageNum} / {pages} 页
          </span>
          <button
            type="button"
            onClick={() => setPageNum((n) => Math.min(pages, n + 1))}
            disabled={pageNum >= pages}
            className="h-9 px-4 rounded-lg border border-line disabled:opacity-40 hover:enabled:border-primary"
          >
            下一页
          </button>
        </nav>
      )}
    </div>
  )
}

function Setting({ user }: { user: LoginUser }) {
  const [name, setName] = useState(user.nickName ?? '')
  const [nameError, setNameError] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const [avatarProgress, setAvatarProgress] = useState<number | null>(null)
  const [avatarError, setAvatarError] = useState<string | null>(null)
  const fileRef = useRef<HTMLInputElement>(null)
  const nameRef = useRef<HTMLInputElement>(null)

  useEffect(() => setName(user.nickName ?? ''), [user.nickName])

  async function saveName(event: Event) {
    event.preventDefault()
    if (saving) return
    const name = nameRef.current?.value ?? ''
    const problem = validateNickName(name)
    setNameError(problem)
    if (problem) return
    if (name.trim() === user.nickName) return toast('昵称未改变', 'info')
    setSaving(true)
    try {
      await saveProfile({ nickName: name })
      toast('昵称已保存', 'success')
    } catch (e) {
      if (e instanceof ApiError && !UNAUTHORIZED_CODES.includes(e.code)) setNameError(e.message)
      else notifyError(e)
    } finally {
      setSaving(false)
    }
  }

  async function changeAvatar(file: File | undefined) {
    if (!file || avatarProgress !== null) return
    setAvatarError(null)
    setAvatarProgress(0)
    try {
      const image = await uploadImage(file, { purpose: 'avatar', onProgress: setAvatarProgress })
      await saveProfile({ avatarUrl: image.url })
      toast('头像已更新', 'success')
    } catch (e) {
      if (e instanceof ApiError && UNAUTHORIZED_CODES.includes(e.code)) notifyError(e)
      else setAvatarError(e instanceof Error && e.message ? e.message : '上传失败，请稍后重试')
    } finally {
      setAvatarProgress(null)
    }
  }

  async function handleLogout() {
    if (await confirm({ title: '退出登录', message: '确定要退出当前账号吗？', confirmText: '退出' })) await logout()
  }

  return (
    <div className="flex flex-col gap-4">
      <div className="rounded-card border border-line bg-surface p-4 sm:p-5 flex items-center gap-4">
        <Avatar user={user} size="size-16" />
        <div className="min-w-0 flex-1">
          <p className="font-semibold">头像</p>
          <p className="text-xs text-muted">PNG、JPEG、WebP 或 GIF，不超过 10 MB</p>
          {avatarProgress !== null && (
            <div
              role="progressbar"
              aria-label="上传头像"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={Math.round(avatarProgress * 100)}
              className="mt-2 h-1.5 max-w-60 rounded-full bg-raised overflow-hidden"
            >
              <div className="h-full bg-primary transition-[width]" style={{ width: `${Math.round(avatarProgress * 100)}%` }} />
            </div>
          )}
          {avatarError && (
            <p role="alert" className="mt-1 text-sm text-danger">
              {avatarError}
            </p>
          )}
        </div>
        <button
          type="button"
          onClick={() => fileRef.current?.click()}
          aria-disabled={avatarProgress !== null}
          className="h-9 px-4 shrink-0 rounded-lg border border-line hover:border-primary hover:text-primary"
        >
          {avatarProgress !== null ? '上传中…' : '更换头像'}
        </button>
        <input
          ref={fileRef}
          type="file"
          accept={UPLOAD_ACCEPT}
          aria-hidden="true"
          tabIndex={-1}
          className="sr-only"
          onChange={(e) => {
            const input = e.target as HTMLInputElement
            void changeAvatar(input.files?.[0])
            input.value = ''
          }}
        />
      </div>

      <form onSubmit={saveName as never} noValidate className="rounded-card border border-line bg-surface p-4 sm:p-5">
        <label htmlFor="lx-nickname" className="block font-semibold">
          昵称
        </label>
        <div className="mt-3 flex flex-col sm:flex-row gap-2">
          <input
            id="lx-nickname"
            ref={nameRef}
            value={name}
            onInput={(e) => {
              setName((e.target as HTMLInputElement).value)
              setNameError(null)
            }}
            maxLength={NICKNAME_MAX * 2}
            placeholder="给自己起个名字"
            aria-invalid={nameError ? true : undefined}
            aria-describedby={nameError ? 'lx-nickname-error' : undefined}
            className="w-full sm:flex-1 min-w-0 h-11 px-3 rounded-lg border border-line bg-raised text-ink placeholder:text-muted outline-none focus:border-primary"
          />
          <button type="submit" aria-disabled={saving} className="h-11 px-6 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110">
            {saving ? '保存中…' : '保存'}
          </button>
        </div>
        {nameError && (
          <p id="lx-nickname-error" role="alert" className="mt-2 text-sm text-danger">
            {nameError}
          </p>
        )}
      </form>

      <div className="rounded-card border border-line bg-surface p-4 sm:p-5 flex items-center gap-4">
        <div className="min-w-0 flex-1">
          <p className="font-semibold">手机号</p>
          <p className="text-sm text-muted">{maskPhone(user.phone)}</p>
        </div>
        <button type="button" onClick={() => $loginOpen.set('modify-phone')} className="h-9 px-4 shrink-0 rounded-lg border border-line hover:border-primary hover:text-primary">
          修改手机号
        </button>
      </div>

      <button type="button" onClick={handleLogout} className="h-11 rounded-lg border border-danger/50 text-danger hover:bg-danger/10">
        退出登录
      </button>
    </div>
  )
}

function Avatar({ user, size }: { user: LoginUser; size: string }) {
  if (user.avatarUrl) return <img src={user.avatarUrl} alt="我的头像" className={`${size} shrink-0 rounded-full object-cover`} />
  const initial = (user.nickName || '灵').slice(0, 1)
  return (
    <span aria-hidden="true" className={`${size} shrink-0 rounded-full grid place-items-center bg-primary text-primary-ink text-xl font-bold`}>
      {initial}
    </span>
  )
}
