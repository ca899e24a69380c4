export { Roles } from './roles'
