import type { Tool } from '../manifest'

/** 接单平台 and 优质接单平台: content tasks paid in WeChat red packets, one element for both. */
export const orders: Tool = {
  tag: 'lingxi-orders',
  routes: [
    { path: '/orders', title: '接单平台', code: 'AI_TOOLS_ORDER_PLATFORM', icon: 'orders', blurb: '承接内容任务，审核通过即得微信红包。', menu: 'signed-in' },
    { path: '/orders/ordersDetail', title: '任务详情', code: 'AI_TOOLS_ORDER_PLATFORM', icon: 'orders', blurb: '查看场次、名额与我的提交。', params: 2 },
    {
      path: '/miracleOrders',
      title: '优质接单平台',
      code: 'AI_TOOLS_ORDER_PLATFORM_QUALITY',
      icon: 'quality',
      blurb: '面向优质创作者的高额任务。',
      menu: 'signed-in'
    },
    {
      path: '/miracleOrders/ordersDetail',
      title: '优质任务详情',
      code: 'AI_TOOLS_ORDER_PLATFORM_QUALITY',
      icon: 'quality',
      blurb: '查看场次、名额与我的提交。',
      params: 2
    }
  ],
  screen: () => import('./screen'),
  allowances: ['tokens']
}
