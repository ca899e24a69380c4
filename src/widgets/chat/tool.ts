import type { Tool } from '../manifest'

/** AI对话: text chat with streaming replies, inline or as a floating bubble. */
export const chat: Tool = {
  tag: 'lingxi-chat',
  routes: [{ path: '/chat', title: 'AI对话', code: 'AI_TOOLS_CHAT', icon: 'chat', blurb: '与多种大模型流式对话，可置顶、重命名话题，记住上下文。' }],
  screen: () => import('./screen'),
  layout: 'fill',
  header: {
    label: '对话操作',
    // EVENT_CHAT_COMMAND of state.ts, which the element listens for (written out: the host's bundle carries no chat code)
    event: 'lingxi-chat-command',
    roomy: true,
    commands: [
      ['topics', '话题列表', 'M4 6h16 M4 12h16 M4 18h10'],
      ['settings', '对话设置', 'M4 7h9 M17 7h3 M4 17h3 M11 17h9 M15 5v4 M9 15v4'],
      ['clear', '清空对话', 'M8 20h12 M4.5 15.5l9-9 5 5-9 9H8z M9 11l5 5'],
      ['bottom', '回到底部', 'M12 5v14 M6 13l6 6 6-6']
    ]
  },
  allowances: ['tokens']
}
