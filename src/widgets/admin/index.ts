export { Admin, type AdminProps } from './admin'
