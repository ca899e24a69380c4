import { useRef, useState } from 'react'
import { notifyError } from '../../core/api'
import { painting } from './state'

const HAN = /\p{Script=Han}/u

/**
 * The English the server makes of a Chinese prompt (painting/translate, free), shown and editable
 * before imagine: 「使用英文」 puts it in the prompt box, which is what gets submitted.
 */
export function PromptPreview({ text, onUse }: { text: string; onUse(english: string): void }) {
  const [english, setEnglish] = useState<string | null>(null)
  const [missing, setMissing] = useState<string[]>([])
  const [busy, setBusy] = useState(false)
  const box = useRef<HTMLTextAreaElement>(null)
  if (!HAN.test(text.replace(/--\S+(\s+\S+)?/g, ''))) return null

  async function preview() {
    if (busy) return
    setBusy(true)
    try {
      const result = await painting.translate(text.trim())
      setEnglish(result.promptEn)
      setMissing(result.missing)
    } catch (error) {
      notifyError(error)
    } finally {
      setBusy(false)
    }
  }

  if (english === null) {
    return (
      <button
        type="button"
        onClick={preview}
        disabled={busy}
        data-testid="prompt-preview"
        className="mt-1 text-xs text-primary hover:underline disabled:opacity-50"
      >
        {busy ? '正在生成英文提示词…' : '查看并修改英文提示词'}
      </button>
    )
  }
  return (
    <div className="mt-2 rounded-lg border border-line bg-raised p-2 space-y-1.5" data-testid="prompt-english">
      <label className="block text-xs text-muted">
        英文提示词（可修改，确认后替换上面的描述）
        <textarea
          ref={box}
          rows={3}
          value={english}
          onInput={(e) => setEnglish((e.target as HTMLTextAreaElement).value)}
          className="mt-1 w-full rounded-md border border-line bg-surface p-2 text-sm text-ink outline-none focus:border-primary resize-y"
        />
      </label>
      {missing.length > 0 && <p className="text-xs text-danger">词库未收录：{missing.join('、')}，请手动改成英文</p>}
      <div className="flex justify-end gap-2">
        <button type="button" onClick={() => setEnglish(null)} className="h-8 px-3 rounded-md text-xs text-muted hover:text-ink">
          收起
        </button>
        <button
          type="button"
          onClick={() => {
            onUse(box.current?.value ?? english)
            setEnglish(null)
          }}
          className="h-8 px-3 rounded-md bg-primary text-primary-ink text-xs font-semibold"
        >
          使用英文
        </button>
      </div>
    </div>
  )
}
