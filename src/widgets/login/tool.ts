import type { Tool } from '../manifest'

/** The login and change-phone dialogs every tool opens, and a 登录 button. */
export const login: Tool = {
  tag: 'lingxi-login',
  npm: ['LoginDialog']
}
