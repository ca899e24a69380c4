export { Login, type LoginProps } from './login'
export { LoginDialog } from '../../ui/login/login-dialog'
