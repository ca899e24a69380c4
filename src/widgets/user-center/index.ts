export { UserCenter } from './user-center'
