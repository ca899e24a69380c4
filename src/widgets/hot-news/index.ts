export { HotNews, type HotNewsProps } from './hot-news'
