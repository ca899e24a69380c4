import { useStore } from '@nanostores/react'
import { useState, type ReactNode } from 'react'
import { notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import { formatCount } from '../../core/format'
import { $user } from '../../core/stores'
import type * as On from '../../ui/events'
import { besides, revealWhenDrawn } from '../../ui/reveal'
import { generateCustomMusic, generateLyrics, generateMusic, validateSong } from './actions'
import { Glyph } from './glyphs'
import { MUSIC_LIMITS } from './state'

type Mode = 'simple' | 'custom'
type Field = 'prompt' | 'lyric' | 'tags' | 'title'

const STYLE_CHIPS = ['流行', '民谣', '摇滚', '电子', '古风', '说唱', '爵士', '钢琴', '女声', '男声']
const IDEAS = ['一首关于夏夜晚风的轻快流行歌', '写给远方朋友的温暖民谣', '赛博朋克城市里的电子舞曲']

const inputClass =
  'w-full rounded-lg border border-line bg-raised px-3 text-ink placeholder:text-muted outline-none focus:border-primary aria-invalid:border-danger'

function FieldBox({
  id,
  label,
  error,
  count,
  limit,
  children,
  action
}: {
  id: string
  label: string
  error?: string
  count: number
  limit: number
  children: ReactNode
  action?: ReactNode
}) {
  return (
    <div>
      <div className="flex items-center justify-between gap-2 mb-1.5">
        <label htmlFor={id} className="text-sm font-medium">
          {label}
        </label>
        {action}
      </div>
      {children}
      <div className="mt-1 flex justify-between gap-2 text-xs">
        <span id={`${id}-error`} role={error ? 'alert' : undefined} className="text-danger">
          {error}
        </span>
        <span className={count > limit ? 'text-danger' : 'text-muted'}>
          {count}/{limit}
        </span>
      </div>
    </div>
  )
}

function Switch({ checked, onChange, label }: { checked: boolean; onChange: (v: boolean) => void; label: string }) {
  return (
    <button type="button" role="switch" aria-checked={checked} onClick={() => onChange(!checked)} className="flex items-center gap-2 text-sm text-ink">
      <span className={`relative inline-block w-9 h-5 rounded-full transition-colors ${checked ? 'bg-primary' : 'bg-line'}`}>
        <span className={`absolute top-0.5 size-4 rounded-full bg-white transition-all ${checked ? 'left-[18px]' : 'left-0.5'}`} />
      </span>
      {label}
    </button>
  )
}

/** Create: from a description (灵感模式), or from lyrics, style and title (自定义模式). */
export function CreateForm() {
  const user = useStore($user)
  const [mode, setMode] = useState<Mode>('simple')
  const [prompt, setPrompt] = useState('')
  const [lyric, setLyric] = useState('')
  const [tags, setTags] = useState('')
  const [title, setTitle] = useState('')
  const [instrumental, setInstrumental] = useState(false)
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({})
  const [sending, setSending] = useState(false)
  const [writing, setWriting] = useState(false)

  const value = (e: On.Input) => (e.target as HTMLInputElement | HTMLTextAreaElement).value
  const edit = (field: Field, set: (v: string) => void) => (e: On.Input) => {
    set(value(e))
    if (errors[field]) setErrors((x) => ({ ...x, [field]: undefined }))
  }
  const aria = (field: Field) => ({ 'aria-invalid': errors[field] ? true : undefined, 'aria-describedby': `lx-music-${field}-error` })

  function addTag(tag: string) {
    const list = tags
      .split(/[,，]\s*/)
      .map((t) => t.trim())
      .filter(Boolean)
    if (list.includes(tag)) return
    setTags([...list, tag].join(', '))
    if (errors.tags) setErrors((x) => ({ ...x, tags: undefined }))
  }

  async function handleWriteLyrics() {
    if (writing) return
    const theme = [title, tags, lyric.slice(0, 200)]
      .map((s) => s.trim())
      .filter(Boolean)
      .join('，')
    if (!theme) {
      setErrors((x) => ({ ...x, lyric: '先写下歌名、风格或几句主题，AI 才知道写什么' }))
      return
    }
    setWriting(true)
    try {
      const answer = await generateLyrics(theme)
      setLyric(answer.text ?? '')
      if (!title.trim() && answer.title) setTitle(answer.title.slice(0, MUSIC_LIMITS.title))
      setErrors((x) => ({ ...x, lyric: undefined, title: undefined }))
    } catch (error) {
      notifyError(error)
    } finally {
      setWriting(false)
    }
  }

  async function handleSubmit(event: On.Submit) {
    event.preventDefault()
    if (sending) return
    const found = mode === 'simple' ? validateSong('simple', { prompt }) : validateSong('custom', { lyric, tags, title, instrumental })
    setErrors(found)
    if (Object.keys(found).length) return
    const form = event.currentTarget
    setSending(true)
    try {
      const { songs } = mode === 'simple' ? await generateMusic({ prompt, instrumental }) : await generateCustomMusic({ lyric, tags, title, instrumental })
      toast('已提交，正在为你生成两首歌', 'success')
      // The description and lyrics stay for another try; the new songs are brought into view.
      // (the list shows the request's clips last made first)
      const first = songs[songs.length - 1]
      if (first) revealWhenDrawn(() => besides(form, `[data-song-id="${CSS.escape(first.songId)}"]`))
    } catch (error) {
      notifyError(error)
    } finally {
      setSending(false)
    }
  }

  const tab = (m: Mode, label: string) => (
    <button
      type="button"
      aria-pressed={mode === m}
      onClick={() => {
        setMode(m)
        setErrors({})
      }}
      className={`flex-1 h-9 rounded-md text-sm ${mode === m ? 'bg-primary text-primary-ink font-semibold' : 'text-muted hover:text-ink'}`}
    >
      {label}
    </button>
  )

  return (
    <form onSubmit={handleSubmit} noValidate aria-label="创作音乐" className="rounded-card border border-line bg-surface p-4 flex flex-col gap-4">
      <fieldset aria-label="创作模式" className="min-w-0 flex p-1 rounded-lg bg-raised">
        {tab('simple', '灵感模式')}
        {tab('custom', '自定义模式')}
      </fieldset>

      {mode === 'simple' ? (
        <>
          <FieldBox id="lx-music-prompt" label="歌曲描述" error={errors.prompt} count={prompt.trim().length} limit={MUSIC_LIMITS.prompt}>
            <textarea
              id="lx-music-prompt"
              rows={4}
              value={prompt}
              onInput={edit('prompt', setPrompt)}
              placeholder="描述你想要的歌曲：主题、情绪、风格……"
              className={`${inputClass} py-2 resize-y min-h-24`}
              {...aria('prompt')}
            />
          </FieldBox>
          <div className="flex flex-wrap gap-2 -mt-2">
            {IDEAS.map((idea) => (
              <button key={idea} type="button" onClick={() => setPrompt(idea)} className="px-2.5 py-1 rounded-full bg-raised text-xs text-muted hover:text-ink">
                {idea}
              </button>
            ))}
          </div>
        </>
      ) : (
        <>
          <FieldBox id="lx-music-title" label="歌名" error={errors.title} count={title.trim().length} limit={MUSIC_LIMITS.title}>
            <input
              id="lx-music-title"
              value={title}
              onInput={edit('title', setTitle)}
              placeholder="给歌曲起个名字"
              className={`${inputClass} h-10`}
              {...aria('title')}
            />
          </FieldBox>
          <FieldBox id="lx-music-tags" label="音乐风格" error={errors.tags} count={tags.trim().length} limit={MUSIC_LIMITS.tags}>
            <input
              id="lx-music-tags"
              value={tags}
              onInput={edit('tags', setTags)}
              placeholder="如：流行, 钢琴, 女声"
              className={`${inputClass} h-10`}
              {...aria('tags')}
            />
            <fieldset className="min-w-0 mt-2 flex flex-wrap gap-1.5" aria-label="常用风格">
              {STYLE_CHIPS.map((tag) => (
                <button
                  key={tag}
                  type="button"
                  onClick={() => addTag(tag)}
                  className="px-2 py-0.5 rounded-full border border-line text-xs text-muted hover:text-ink hover:border-primary"
                >
                  {tag}
                </button>
              ))}
            </fieldset>
          </FieldBox>
          {!instrumental && (
            <FieldBox
              id="lx-music-lyric"
              label="歌词"
              error={errors.lyric}
              count={lyric.trim().length}
              limit={MUSIC_LIMITS.lyric}
              action={
                <button
                  type="button"
                  onClick={handleWriteLyrics}
                  aria-disabled={writing || undefined}
                  className="inline-flex items-center gap-1 h-7 px-2.5 rounded-md bg-primary/15 text-primary text-xs font-medium hover:bg-primary/25"
                >
                  <Glyph name="spark" className="size-3.5" />
                  {writing ? '写词中…' : 'AI 写词'}
                </button>
              }
            >
              <textarea
                id="lx-music-lyric"
                rows={8}
                value={lyric}
                onInput={edit('lyric', setLyric)}
                placeholder={'[Verse]\n写下你的歌词……\n[Chorus]\n……'}
                className={`${inputClass} py-2 resize-y min-h-40 font-mono text-[13px] leading-6`}
                {...aria('lyric')}
              />
            </FieldBox>
          )}
        </>
      )}

      <div className="flex items-center justify-between gap-3">
        <Switch checked={instrumental} onChange={setInstrumental} label="纯音乐" />
        {user && (
          <span className="text-xs text-muted">
            剩余次数{' '}
            <b data-testid="suno-count" className="text-ink font-semibold">
              {user.state === 0 ? '已过期' : formatCount(user.sunoCount)}
            </b>
          </span>
        )}
      </div>
      <button
        type="submit"
        aria-disabled={sending || undefined}
        className="h-11 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110 aria-disabled:opacity-60 inline-flex items-center justify-center gap-2"
      >
        {sending && <span className="lx-spinner !size-4 !border-2 !border-primary-ink/30 !border-t-primary-ink" aria-hidden="true" />}
        {sending ? '提交中…' : '生成音乐'}
      </button>
      <p className="-mt-2 text-xs text-muted text-center">每次生成两首，消耗 1 次音乐次数；全部失败会退还。</p>
    </form>
  )
}
