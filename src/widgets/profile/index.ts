export { Profile } from './profile'
