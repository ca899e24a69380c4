export { Music, type MusicProps } from './music'
