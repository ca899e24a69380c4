import { request } from '../../core/api'
import { $config } from '../../core/config'
import type { Paged } from '../../core/paged-list'
import type { ImageAlbum } from '@lingxi/server/wire'
import type { Image } from '../../core/upload'

// Shapes and calls: docs/tools-wire.md (Files and the image host).

export const IMAGE_PAGE_SIZE = 24

/** Which images the grid shows: all, those outside any album, or one album's. */
export type AlbumFilter = 'all' | 'none' | { albumId: string }

/** An image of the grid, with its album (null: none). */
export type HostedImage = Image & { albumId?: string | null }

/** One page of my images, newest first (of an album, or outside any with `none`). */
export function listImages(pageNum = 1, pageSize = IMAGE_PAGE_SIZE, filter: AlbumFilter = 'all'): Promise<Paged<HostedImage>> {
  const albumId = filter === 'all' ? undefined : filter === 'none' ? 'none' : filter.albumId
  return request<Paged<HostedImage>>('/images/list', albumId === undefined ? { pageNum, pageSize } : { pageNum, pageSize, albumId })
}

export type { ImageAlbum } from '@lingxi/server/wire'

export const listAlbums = () => request<ImageAlbum[]>('/images/album/list', {})
export const addAlbum = (name: string) => request<ImageAlbum>('/images/album/add', { name: name.trim() })
export const renameAlbum = (albumId: string, name: string) => request<true>('/images/album/rename', { albumId, name: name.trim() })
/** Deletes an album; its images stay, outside any album. */
export const deleteAlbum = (albumId: string) => request<true>('/images/album/del', { albumId })
/** Moves my images into an album, or out of any (null). */
export const moveImages = (imageIds: string[], albumId: string | null) => request<{ moved: number }>('/images/move', { imageIds, albumId })

/** Deletes one of my images (the file and its thumbnail go with it). */
export async function deleteImage(imageId: string): Promise<void> {
  await request<unknown>('/images/del', { imageId })
}

export type LinkFormat = 'url' | 'markdown' | 'html'

export const LINK_FORMATS: { format: LinkFormat; label: string }[] = [
  { format: 'url', label: 'URL' },
  { format: 'markdown', label: 'Markdown' },
  { format: 'html', label: 'HTML' }
]

/**
 * The absolute address of an image URL. A relative one (`/files/…`) is the API server's, which on
 * a partner page is not the page's origin: it resolves against `apiBase`, else the page.
 */
export function absoluteUrl(url: string, base?: string): string {
  try {
    const page = typeof location === 'undefined' ? 'http://localhost/' : location.href
    const origin = base || (/^https?:/i.test($config.get().apiBase) ? new URL($config.get().apiBase + '/', page).href : page)
    return new URL(url, origin).href
  } catch {
    return url
  }
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const escapeMarkdown = (s: string) => s.replace(/[[\]\\]/g, (c) => `\\${c}`)

/**
 * The text to paste for an image: its URL, a Markdown image or an HTML `<img>`. The name is
 * escaped for the format, so a name like `a]<b>.png` cannot break out of it.
 */
export function imageLink(image: Pick<Image, 'url' | 'name'>, format: LinkFormat, base?: string): string {
  const url = absoluteUrl(image.url, base)
  const alt = (image.name || 'image').replace(/\.[a-z0-9]+$/i, '')
  if (format === 'markdown') return `![${escapeMarkdown(alt)}](${url.replace(/[()\s]/g, encodeURIComponent)})`
  if (format === 'html') return `<img src="${escapeHtml(url)}" alt="${escapeHtml(alt)}">`
  return url
}

/** 1536 → '1.5 KB', 3_500_000 → '3.3 MB'. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '0 B'
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}
