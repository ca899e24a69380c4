import type { Tool } from '../manifest'

/** 角色库: the role repository; 开始对话 hands a topic to the chat. */
export const roles: Tool = {
  tag: 'lingxi-roles',
  routes: [{ path: '/role', title: '角色库', code: 'AI_TOOLS_ROLE', icon: 'role', blurb: '从数十个中文角色中挑选一位，一键开始角色对话。' }],
  screen: () => import('./screen')
}
