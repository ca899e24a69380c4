import { USER_CENTER_PATH } from '../../core/menu'
import type { Tool } from '../manifest'

/** 个人中心: allowances, recharge cards, the logs and the profile; always reachable (no permission code). */
export const userCenter: Tool = {
  tag: 'lingxi-user-center',
  routes: [{ path: USER_CENTER_PATH, title: '个人中心', icon: 'center', blurb: '额度、卡密兑换、消费记录与设置。' }],
  screen: () => import('./screen'),
  allowances: ['tokens', 'mj', 'suno']
}
