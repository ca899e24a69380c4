/**
 * The npm entry for React apps: `import { LingxiProvider, Login, Profile, Toaster } from 'lingxi'`.
 * React stays a peer dependency here (the CDN build swaps in preact/compat instead). Every
 * component renders in its own shadow root with Lingxi's stylesheet, like the custom elements.
 */
import { Login as LoginInner } from '../widgets/login'
import { Profile as ProfileInner } from '../widgets/profile'
import { Toaster as ToasterInner } from '../widgets/toaster'
import { withShadow } from './shadow'

export * from '../core'
export type { LoginProps } from '../widgets/login'
export { LingxiProvider, type LingxiProviderProps } from './provider'
export { withShadow, type ShadowProps } from './shadow'

/** The login dialog, plus a 登录 button with `button`. */
export const Login = withShadow(LoginInner, 'login')
/** The signed-in person's header button, menu and profile panel. */
export const Profile = withShadow(ProfileInner, 'profile')
/** Toasts and confirm dialogs for the page. */
export const Toaster = withShadow(ToasterInner, 'toaster')
/** The login dialog alone (opens with `openLogin()`). */
export const LoginDialog = withShadow(() => <LoginInner />, 'login-dialog')
