import type { WidgetKey } from './screens/widgets'

/** The route table of the spec (section 2): what each path shows and which tool it belongs to. */
export interface RouteInfo {
  path: string
  title: string
  /** Permission code of the tool, for the coming panel's icon and text. */
  code?: string
  icon: string
  blurb: string
  kind: 'entry' | 'tool' | 'usercenter' | 'notFound'
  /** The element that shows the tool, loaded when the route is first shown (none: 即将上线). */
  widget?: WidgetKey
}

const tool = (path: string, title: string, code: string, icon: string, blurb: string): RouteInfo => ({
  path,
  title,
  code,
  icon,
  blurb,
  kind: 'tool',
})

export const routes: RouteInfo[] = [
  { path: '/', title: '灵犀 AI 工具箱', icon: 'home', blurb: '', kind: 'entry' },
  { ...tool('/chat', 'AI对话', 'AI_TOOLS_CHAT', 'chat', '与多种大模型流式对话，可置顶、重命名话题，记住上下文。'), widget: 'chat' },
  { ...tool('/role', '角色库', 'AI_TOOLS_ROLE', 'role', '从数十个中文角色中挑选一位，一键开始角色对话。'), widget: 'roles' },
  { ...tool('/mj', 'AI绘画', 'AI_TOOLS_PAINTING', 'painting', '输入中文或英文描述，生成四宫格，放大、变体、平移。'), widget: 'painting' },
  { ...tool('/sd', 'SD绘画', 'AI_TOOLS_SD', 'painting', 'Stable Diffusion 文生图，参数尽在掌握。'), widget: 'painting' },
  { ...tool('/mjHelper', '绘画助手', 'AI_TOOLS_PAINTING', 'spark', '点选中文词汇，拼出专业的 Midjourney 提示词。'), widget: 'painting' },
  { ...tool('/music', 'AI音乐', 'AI_TOOLS_MUSIC', 'music', '一句描述或一段歌词，生成两首完整的歌曲。'), widget: 'music' },
  { ...tool('/hotNew', '热点资讯', 'AI_TOOLS_HOT', 'hot', '微博、知乎、抖音等热榜一屏看尽，AI 帮你解读。'), widget: 'hotNews' },
  { ...tool('/gallery', '画廊', 'AI_TOOLS_GALLERY', 'gallery', '欣赏大家公开发布的 AI 作品。'), widget: 'painting' },
  { ...tool('/imgSee', '图床', 'AI_TOOLS_IMAGE', 'image', '拖拽或粘贴上传图片，一键复制链接。'), widget: 'imageHost' },
  { ...tool('/orders', '接单平台', 'AI_TOOLS_ORDER_PLATFORM', 'orders', '承接内容任务，审核通过即得微信红包。'), widget: 'orders' },
  { ...tool('/orders/ordersDetail', '任务详情', 'AI_TOOLS_ORDER_PLATFORM', 'orders', '查看场次、名额与我的提交。'), widget: 'orders' },
  { ...tool('/miracleOrders', '优质接单平台', 'AI_TOOLS_ORDER_PLATFORM_QUALITY', 'quality', '面向优质创作者的高额任务。'), widget: 'orders' },
  { ...tool('/miracleOrders/ordersDetail', '优质任务详情', 'AI_TOOLS_ORDER_PLATFORM_QUALITY', 'quality', '查看场次、名额与我的提交。'), widget: 'orders' },
  { path: '/usercenter', title: '个人中心', icon: 'center', blurb: '额度、卡密兑换、消费记录与设置。', kind: 'usercenter' },
  { path: '/404', title: '页面不存在', icon: 'spark', blurb: '', kind: 'notFound' },
]

/** The route for a pathname: exact paths, and the two detail routes with their two ids. */
export function matchRoute(pathname: string): RouteInfo | null {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname
  const detail = /^\/(orders|miracleOrders)\/ordersDetail\/[^/]+\/[^/]+$/.exec(path)
  const key = detail ? `/${detail[1]}/ordersDetail` : path
  if (key.endsWith('/ordersDetail') && !detail) return null
  return routes.find((r) => r.path === key) ?? null
}
