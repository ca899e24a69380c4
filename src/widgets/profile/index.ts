export { Profile } from "./profile"
