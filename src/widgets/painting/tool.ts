import type { Tool } from '../manifest'

/** AI绘画: Midjourney jobs, stable diffusion, the prompt helper and the gallery, one element in four views. */
export const painting: Tool = {
  tag: 'lingxi-painting',
  routes: [
    { path: '/mj', title: 'AI绘画', code: 'AI_TOOLS_PAINTING', icon: 'painting', blurb: '输入中文或英文描述，生成四宫格，放大、变体、平移。' },
    {
      path: '/sd',
      title: 'SD绘画',
      code: 'AI_TOOLS_SD',
      icon: 'painting',
      blurb: 'Stable Diffusion 文生图，参数尽在掌握。',
      menu: 'hidden',
      highlights: 'AI_TOOLS_PAINTING'
    },
    {
      path: '/mjHelper',
      title: '绘画助手',
      code: 'AI_TOOLS_PAINTING',
      icon: 'spark',
      blurb: '点选中文词汇，拼出专业的 Midjourney 提示词。',
      highlights: 'AI_TOOLS_PAINTING'
    },
    { path: '/gallery', title: '画廊', code: 'AI_TOOLS_GALLERY', icon: 'gallery', blurb: '欣赏大家公开发布的 AI 作品。' }
  ],
  screen: () => import('./screen'),
  allowances: ['mj']
}
