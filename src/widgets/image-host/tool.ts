import type { Tool } from '../manifest'

/** 图床: upload images and copy their links. */
export const imageHost: Tool = {
  tag: 'lingxi-image-host',
  routes: [{ path: '/imgSee', title: '图床', code: 'AI_TOOLS_IMAGE', icon: 'image', blurb: '拖拽或粘贴上传图片，一键复制链接。' }],
  screen: () => import('./screen')
}
