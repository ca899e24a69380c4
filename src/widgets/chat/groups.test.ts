import { describe, expect, it } from 'vitest'
import { groupTopics } from './groups'
import type { Topic } from './state'

// Local dates (the reader's calendar), so the test holds in any time zone.
const at = (y: number, m: number, d: number, h = 0, min = 0, s = 0, ms = 0) => new Date(y, m - 1, d, h, min, s, ms).getTime()

function topic(topicId: string, updateTime: number, topFlag: 0 | 1 = 0): Topic {
  return {
    topicId,
    name: topicId,
    topFlag,
    updateTime,
    createTime: updateTime,
    chatType: 30,
    oldChatType: null,
    oldTopicIndex: null,
    roleId: null,
    roleName: null,
    roleAvatar: null,
    model: 'lingxi-demo',
    temperature: 0.7,
    contextEnabled: 1
  }
}

const now = at(2026, 3, 10, 12, 0)
const shape = (topics: Topic[], when = now) => groupTopics(topics, when).map((g) => [g.label, g.topics.map((t) => t.topicId)])

describe('groupTopics', () => {
  it('puts pinned topics under 置顶 whatever their age, then 今天 / 七天内 / 更早, empty groups left out', () => {
    const topics = [
      topic('pinned-old', at(2020, 1, 1), 1),
      topic('pinned-now', now, 1),
      topic('today', at(2026, 3, 10, 9)),
      topic('yesterday', at(2026, 3, 9, 18)),
      topic('old', at(2026, 1, 1))
    ]
    expect(shape(topics)).toEqual([
      ['置顶', ['pinned-old', 'pinned-now']],
      ['今天', ['today']],
      ['七天内', ['yesterday']],
      ['更早', ['old']]
    ])
    expect(shape([topic('old', at(2026, 1, 1))])).toEqual([['更早', ['old']]])
    expect(groupTopics([], now)).toEqual([])
  })

  it('counts calendar days: today starts at midnight, 七天内 runs through the 7th day before', () => {
    const cases: [string, number, string][] = [
      ['midnight today', at(2026, 3, 10, 0, 0, 0, 0), '今天'],
      ['last moment of today', at(2026, 3, 10, 23, 59, 59, 999), '今天'],
      ['last moment of yesterday (1 day)', at(2026, 3, 9, 23, 59, 59, 999), '七天内'],
      ['midnight yesterday', at(2026, 3, 9), '七天内'],
      ['7 days before, first moment', at(2026, 3, 3, 0, 0, 0, 0), '七天内'],
      ['7 days before, last moment', at(2026, 3, 3, 23, 59, 59, 999), '七天内'],
      ['8 days before, last moment', at(2026, 3, 2, 23, 59, 59, 999), '更早'],
      ['clock skew: tomorrow', at(2026, 3, 11, 8), '今天']
    ]
    for (const [name, time, label] of cases) expect([name, groupTopics([topic(name, time)], now)[0]?.label]).toEqual([name, label])
  })

  it('does not depend on the time of day of now', () => {
    const earlyMorning = at(2026, 3, 10, 0, 0, 1)
    const lateNight = at(2026, 3, 10, 23, 59, 59)
    const topics = [topic('a', at(2026, 3, 9, 23, 0)), topic('b', at(2026, 3, 3, 1, 0)), topic('c', at(2026, 3, 2, 23, 0))]
    expect(shape(topics, earlyMorning)).toEqual(shape(topics, lateNight))
    expect(shape(topics, earlyMorning)).toEqual([
      ['七天内', ['a', 'b']],
      ['更早', ['c']]
    ])
  })

  it('crosses a month and a year end', () => {
    const newYear = at(2027, 1, 3, 10)
    expect(shape([topic('dec27', at(2026, 12, 27, 10)), topic('dec26', at(2026, 12, 26, 10))], newYear)).toEqual([
      ['七天内', ['dec27']],
      ['更早', ['dec26']]
    ])
  })
})
