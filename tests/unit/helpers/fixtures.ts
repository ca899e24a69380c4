import type { LoginUser, PermissionNode, SystemConfig } from '../../../src/core/types'

export const systemConfig: SystemConfig = {
  permissionCodes: {
    AI_TOOLS_CHAT: { icon: 'chat', path: '/chat', permissionName: 'AI对话' },
    AI_TOOLS_ROLE: { icon: 'role', path: '/role', permissionName: '角色库' },
    AI_TOOLS_PAINTING: { icon: 'painting', path: '/mj', permissionName: 'AI绘画' },
    AI_TOOLS_SD: { icon: 'sd', path: '/sd', permissionName: 'SD绘画' },
    AI_TOOLS_MUSIC: { icon: 'music', path: '/music', permissionName: 'AI音乐' },
    AI_TOOLS_HOT: { icon: 'hot', path: '/hotNew', permissionName: '热点追踪' },
    AI_TOOLS_GALLERY: { icon: 'gallery', path: '/gallery', permissionName: '画廊' },
    AI_TOOLS_IMAGE: { icon: 'image', path: '/imgSee', permissionName: '图床' },
    AI_TOOLS_ORDER_PLATFORM: { icon: 'order', path: '/orders', permissionName: '接单平台' },
    AI_TOOLS_ORDER_PLATFORM_QUALITY: { icon: 'quality', path: '/miracleOrders', permissionName: '优质接单平台' }
  },
  pathMap: {
    production: {
      '/mjHelper': 'AI_TOOLS_PAINTING',
      '/orders/ordersDetail': 'AI_TOOLS_ORDER_PLATFORM',
      '/miracleOrders/ordersDetail': 'AI_TOOLS_ORDER_PLATFORM_QUALITY'
    }
  },
  siteName: '灵犀',
  cookieDomain: '',
  wechatLogin: true
}

const node = (permissionCode: string, checked: 0 | 1 = 1, childList: PermissionNode[] = []): PermissionNode => ({
  permissionCode,
  checked,
  childList
})

/** The server's bodyList with everything granted. */
export function fullTree(): PermissionNode[] {
  return [
    node('AI_TOOLS_CHAT'),
    node('AI_TOOLS_ROLE'),
    node('AI_TOOLS_PAINTING', 1, [node('AI_TOOLS_SD')]),
    node('AI_TOOLS_MUSIC'),
    node('AI_TOOLS_HOT'),
    node('AI_TOOLS_GALLERY'),
    node('AI_TOOLS_IMAGE'),
    node('AI_TOOLS_ORDER_PLATFORM'),
    node('AI_TOOLS_ORDER_PLATFORM_QUALITY')
  ]
}

export { node }

export const user: LoginUser = {
  accountId: 'acc-1',
  userId: 'acc-1',
  phone: '13800138000',
  nickName: '灵犀用户',
  avatarUrl: '',
  state: 1,
  tokens: 12345,
  mjCount: 10,
  sunoCount: 5,
  permissionCodes: ['AI_TOOLS_CHAT', 'AI_TOOLS_PAINTING', 'AI_TOOLS_SD']
}
