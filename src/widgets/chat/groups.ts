import type { Topic } from './state'

export type TopicGroupKey = 'top' | 'today' | 'week' | 'older'

export interface TopicGroup {
  key: TopicGroupKey
  /** 置顶, 今天, 七天内, 更早 */
  label: string
  topics: Topic[]
}

const GROUP_LABELS: Record<TopicGroupKey, string> = { top: '置顶', today: '今天', week: '七天内', older: '更早' }
const DAY = 864e5

const startOfDay = (ms: number) => new Date(ms).setHours(0, 0, 0, 0)

/**
 * The topic list's groups, in order, empty ones left out: 置顶 (topFlag 1), 今天 (the same
 * calendar day as `now`), 七天内 (1 to 7 calendar days before: the spec's 0–7 days difference,
 * today being its own group) and 更早. A time in the future counts as today. Topics keep their
 * order within a group.
 */
export function groupTopics(topics: Topic[], now: number = Date.now()): TopicGroup[] {
  const today = startOfDay(now)
  const groups: Record<TopicGroupKey, Topic[]> = { top: [], today: [], week: [], older: [] }
  for (const topic of topics) {
    // Rounded: a day of a daylight-saving change lasts 23 or 25 hours.
    const days = Math.round((today - startOfDay(topic.updateTime)) / DAY)
    const key: TopicGroupKey = topic.topFlag === 1 ? 'top' : days <= 0 ? 'today' : days <= 7 ? 'week' : 'older'
    groups[key].push(topic)
  }
  return (Object.keys(groups) as TopicGroupKey[]).filter((key) => groups[key].length).map((key) => ({ key, label: GROUP_LABELS[key], topics: groups[key] }))
}
