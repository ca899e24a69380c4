/**
 * The npm entry for React apps: `import { LoginDialog, LingxiProvider } from 'lingxi'`.
 * React stays a peer dependency here (the CDN build swaps in preact/compat instead).
 */
export * from '../core'
export { Login, LoginDialog, type LoginProps } from '../widgets/login'
export { Profile } from '../widgets/profile'
export { Toaster } from '../widgets/toaster'
export { LingxiProvider, type LingxiProviderProps } from './provider'
