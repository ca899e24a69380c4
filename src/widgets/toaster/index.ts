export { Toaster } from "./toaster"
