export { Toaster } from './toaster'
