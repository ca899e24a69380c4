import { useState } from 'react'
import { notifyError } from '../../core/api'
import { confirm, toast } from '../../core/emit'
import type { AlbumFilter, ImageAlbum } from './state'
import { addAlbum, deleteAlbum, renameAlbum } from './state'

const chip = 'h-9 px-3 rounded-full border text-sm whitespace-nowrap'
const same = (a: AlbumFilter, b: AlbumFilter) => (typeof a === 'string' || typeof b === 'string' ? a === b : a.albumId === b.albumId)

/**
 * The albums above the grid: 全部 / 未分组 / each album (with its count) to filter by, 新建相册,
 * and for the album shown, 重命名 and 删除 (its images stay, outside any album).
 */
export function AlbumBar({
  albums,
  filter,
  onFilter,
  onChanged
}: {
  albums: ImageAlbum[]
  filter: AlbumFilter
  onFilter: (filter: AlbumFilter) => void
  onChanged: () => Promise<void>
}) {
  const [editing, setEditing] = useState<'new' | 'rename' | null>(null)
  const [name, setName] = useState('')
  const current = typeof filter === 'object' ? albums.find((a) => a.albumId === filter.albumId) : undefined

  async function save() {
    if (!name.trim()) return toast('请填写相册名称', 'warning')
    try {
      if (editing === 'rename' && current) {
        await renameAlbum(current.albumId, name)
        await onChanged()
      } else {
        const album = await addAlbum(name)
        await onChanged()
        onFilter({ albumId: album.albumId })
      }
      setEditing(null)
    } catch (error) {
      notifyError(error)
    }
  }

  async function remove() {
    if (!current) return
    if (!(await confirm({ title: '删除相册', message: `确定删除相册「${current.name}」吗？其中的图片不会被删除，会移到未分组。`, confirmText: '删除' }))) return
    try {
      await deleteAlbum(current.albumId)
      onFilter('all')
      await onChanged()
    } catch (error) {
      notifyError(error)
    }
  }

  const options: { filter: AlbumFilter; label: string }[] = [
    { filter: 'all', label: '全部' },
    { filter: 'none', label: '未分组' },
    ...albums.map((a) => ({ filter: { albumId: a.albumId }, label: `${a.name} (${a.imageCount})` }))
  ]
  return (
    <div className="mt-4 flex flex-col gap-2">
      <div className="flex items-center gap-2 overflow-x-auto pb-1" role="toolbar" aria-label="相册">
        {options.map((o) => {
          const on = same(o.filter, filter)
          return (
            <button
              key={typeof o.filter === 'string' ? o.filter : o.filter.albumId}
              type="button"
              aria-pressed={on}
              data-testid="album-chip"
              onClick={() => onFilter(o.filter)}
              className={`${chip} ${on ? 'border-primary bg-primary/10 text-primary font-medium' : 'border-line bg-surface hover:border-primary/60'}`}
            >
              {o.label}
            </button>
          )
        })}
        <button
          type="button"
          onClick={() => {
            setName('')
            setEditing('new')
          }}
          className={`${chip} border-dashed border-line text-muted hover:text-primary hover:border-primary`}
        >
          ＋ 新建相册
        </button>
      </div>
      {editing ? (
        <form
          className="flex flex-wrap items-center gap-2"
          onSubmit={(e) => {
            e.preventDefault()
            void save()
          }}
        >
          <input
            // biome-ignore lint/a11y/noAutofocus: the field the person just asked for
            autoFocus
            value={name}
            maxLength={40}
            aria-label={editing === 'new' ? '新相册名称' : '相册的新名称'}
            placeholder="相册名称"
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
            className="h-9 flex-1 min-w-40 max-w-xs rounded-lg border border-line bg-raised px-3 text-sm focus:border-primary outline-none"
          />
          <button type="submit" className="h-9 px-4 rounded-lg bg-primary text-primary-ink text-sm font-semibold">
            {editing === 'new' ? '创建' : '保存'}
          </button>
          <button type="button" onClick={() => setEditing(null)} className="h-9 px-3 rounded-lg text-sm text-muted hover:text-ink">
            取消
          </button>
        </form>
      ) : (
        current && (
          <div className="flex items-center gap-2 text-sm">
            <span className="text-muted">相册「{current.name}」</span>
            <button
              type="button"
              onClick={() => {
                setName(current.name)
                setEditing('rename')
              }}
              className="h-8 px-3 rounded-lg border border-line hover:border-primary hover:text-primary"
            >
              重命名
            </button>
            <button type="button" onClick={() => void remove()} className="h-8 px-3 rounded-lg border border-line text-danger hover:border-danger">
              删除相册
            </button>
          </div>
        )
      )}
    </div>
  )
}

/** Moves one image: a select of 未分组 and the albums. */
export function MoveSelect({
  image,
  albums,
  onMove
}: {
  image: { name: string; albumId?: string | null }
  albums: ImageAlbum[]
  onMove: (albumId: string | null) => void
}) {
  if (albums.length === 0) return null
  return (
    <select
      aria-label={`移动 ${image.name} 到相册`}
      value={image.albumId ?? ''}
      onChange={(e) => onMove((e.target as HTMLSelectElement).value || null)}
      className="h-8 w-full rounded-lg border border-line bg-raised px-2 text-xs"
    >
      <option value="">未分组</option>
      {albums.map((a) => (
        <option key={a.albumId} value={a.albumId}>
          {a.name}
        </option>
      ))}
    </select>
  )
}
