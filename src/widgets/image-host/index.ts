export { ImageHost } from './image-host'
