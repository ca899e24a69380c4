import type { Tool } from '../manifest'

/** 热点资讯: ranked lists of hot topics, with an AI 解读 of any item. */
export const hotNews: Tool = {
  tag: 'lingxi-hot-news',
  routes: [{ path: '/hotNew', title: '热点资讯', code: 'AI_TOOLS_HOT', icon: 'hot', blurb: '微博、知乎、抖音等热榜一屏看尽，AI 帮你解读。' }],
  screen: () => import('./screen'),
  header: {
    label: '热点操作',
    // EVENT_HOT_COMMAND of state.ts, which the element listens for (written out: the host's bundle carries no hot-news code)
    event: 'lingxi-hot-command',
    commands: [
      ['list', '热榜来源', 'M4 6h16 M4 12h16 M4 18h16'],
      ['copy', '复制列表', 'M9 9h11v11H9z M5 15H4V4h11v1']
    ]
  },
  allowances: ['tokens']
}
