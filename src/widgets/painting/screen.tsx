import type { ScreenProps } from '../manifest'
import './painting.element'

const VIEW_BY_PATH: Record<string, string> = { '/mj': 'mj', '/sd': 'sd', '/mjHelper': 'helper', '/gallery': 'gallery' }

/**
 * /mj, /sd, /mjHelper and /gallery: the painting element in the matching view. `?prompt=` (from
 * 发送到绘画 or 做同款) starts /mj with that prompt.
 */
export default function PaintingScreen({ route, search }: ScreenProps) {
  const view = VIEW_BY_PATH[route.path] ?? 'mj'
  const prompt = view === 'mj' ? (new URLSearchParams(search).get('prompt') ?? undefined) : undefined
  return <lingxi-painting key={view} view={view} prompt={prompt} />
}
