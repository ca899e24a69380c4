import { useStore } from '@nanostores/react'
import { $user, openLogin } from '../../core/stores'
import type { ElementProps } from '../../ui/define'
import { LoginDialog as Dialog } from '../../ui/login/login-dialog'

export interface LoginProps extends ElementProps {
  /** Also render a 登录 button while logged out (for pages without a header of their own). */
  button?: boolean
}

/**
 * @summary Phone-number login: the dialog every Lingxi widget opens, plus an optional button.
 * @csspart dialog - The login dialog.
 * @csspart button - The 登录 button (with the `button` attribute).
 * @cssproperty --lingxi-primary - Accent colour (default #fbab00).
 */
export function Login({ button }: LoginProps) {
  const user = useStore($user)
  return (
    <>
      {button && !user && (
        <button
          type="button"
          part="button"
          onClick={() => openLogin()}
          className="h-9 px-4 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110"
        >
          登录
        </button>
      )}
      <Dialog />
    </>
  )
}

/** @summary The login dialog alone (it opens with `openLogin()`), for apps with a 登录 button of their own. */
export function LoginDialog() {
  return <Login />
}
