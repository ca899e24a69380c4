export { Login, LoginDialog, type LoginProps } from './login'
