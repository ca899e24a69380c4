export { Login, type LoginProps } from './login'
export { LoginDialog } from './login-dialog'
