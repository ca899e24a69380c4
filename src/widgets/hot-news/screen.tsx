import type { ScreenProps } from '../manifest'
import './hot-news.element'

/** /hotNew: the hot news element; on phones the host header's 列表 and 复制 buttons drive it. */
export default function HotNewsScreen(_: ScreenProps) {
  return <lingxi-hot-news external-controls="" />
}
