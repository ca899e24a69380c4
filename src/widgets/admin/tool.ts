import type { Tool } from '../manifest'

/** 运营后台: the operator console (users, recharge cards, packages, orders, audit log), for ADMIN holders. */
export const admin: Tool = {
  tag: 'lingxi-admin',
  routes: [{ path: '/admin', title: '运营后台', code: 'ADMIN', icon: 'user', blurb: '用户、充值卡、套餐、订单与审计日志。', menu: 'signed-in' }],
  screen: () => import('./screen')
}
