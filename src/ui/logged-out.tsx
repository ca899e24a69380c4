import { useStore } from '@nanostores/react'
import { lazy, Suspense, type ReactNode } from 'react'
import { $loginOpen, $token, openLogin } from '../core/stores'

const LoginDialog = lazy(() => import('./login/login-dialog').then((m) => ({ default: m.LoginDialog })))

export interface LoggedOutProps {
  /** The tool's icon (size-7). */
  icon: ReactNode
  /** 登录后… */
  title: string
  /** What the tool does, in one line. */
  blurb: string
}

/** What a tool shows logged out: its icon, what it does, and a 登录 button. */
export function LoggedOut({ icon, title, blurb }: LoggedOutProps) {
  return (
    <div className="py-16 flex flex-col items-center gap-2 text-center">
      <span className="size-14 grid place-items-center rounded-2xl bg-primary/15 text-primary">{icon}</span>
      <h2 className="mt-2 text-lg font-semibold">{title}</h2>
      <p className="text-sm text-muted">{blurb}</p>
      <button type="button" onClick={() => openLogin()} className="mt-3 h-10 px-6 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110">
        登录
      </button>
    </div>
  )
}

/**
 * The login dialog inside a tool's element (its code loads on first need): while logged out, and
 * whenever a login or a phone change is asked for.
 */
export function InlineLogin() {
  const token = useStore($token)
  const open = useStore($loginOpen)
  return !token || open ? (
    <Suspense fallback={null}>
      <LoginDialog />
    </Suspense>
  ) : null
}
