import { useEffect, useState } from 'react'
import { notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import type * as On from '../../ui/events'
import { Spinner } from '../../ui/icons'
import { button, danger, Field, FormError, Heading, input, primary, Table, useSubmit } from './parts'
import { adminCall, when } from './state'
import { iso } from './content-state'

// 敏感词库: the local word list as every node checks with it; add or remove words, or read
// MODERATION_WORDS_FILE again. Changes reach every node at once (server: moderation/word-store.ts).

interface Word {
  word: string
  verdict: 'review' | 'block'
  pinyin: boolean
  source: 'file' | 'console'
  createTime: number
}
interface Words {
  enabled: boolean
  file: boolean
  list: Word[]
  problems: string[]
}

export function WordsTab() {
  const [data, setData] = useState<Words | null>(null)
  const [word, setWord] = useState('')
  const [verdict, setVerdict] = useState<'block' | 'review'>('block')
  const [pinyin, setPinyin] = useState(false)
  const { error, setError, busy, run } = useSubmit()

  useEffect(() => {
    adminCall<Words>('moderation/words').then(setData, notifyError)
  }, [])

  function add(event: On.Submit) {
    event.preventDefault()
    if (!word.trim()) return setError('请填写敏感词')
    run(async () => {
      setData(await adminCall<Words>('moderation/words/add', { word: word.trim(), verdict, pinyin }))
      toast(`已添加「${word.trim()}」`, 'success')
      setWord('')
    })
  }
  function remove(w: Word) {
    run(async () => {
      setData(await adminCall<Words>('moderation/words/remove', { word: w.word }))
      toast(`已删除「${w.word}」`, 'success')
    })
  }
  function reload() {
    run(async () => {
      const next = await adminCall<Words>('moderation/words/reload')
      setData(next)
      toast(next.problems.length ? `已重新加载，${next.problems.length} 行无法识别` : '已从文件重新加载', next.problems.length ? 'error' : 'success')
    })
  }

  if (!data) return <Spinner label="加载敏感词库" />
  return (
    <>
      <h3 className="sr-only">敏感词库</h3>
      {!data.enabled && <p className="mb-3 text-sm text-danger">本地词库未启用（MODERATION_PROVIDERS 不含 words）：此处的修改会保存，但启用前不会生效。</p>}
      <form onSubmit={add} noValidate className="flex flex-wrap items-end gap-3">
        <Field id="lx-word" label="敏感词" className="w-48">
          <input id="lx-word" className={input} maxLength={50} value={word} onInput={(e) => setWord((e.target as HTMLInputElement).value)} />
        </Field>
        <Field id="lx-word-verdict" label="处置" className="w-32">
          <select
            id="lx-word-verdict"
            className={input}
            value={verdict}
            onChange={(e) => setVerdict((e.target as HTMLSelectElement).value as 'block' | 'review')}
          >
            <option value="block">拦截</option>
            <option value="review">放行待复核</option>
          </select>
        </Field>
        <label className="flex items-center gap-2 h-10 text-sm">
          <input type="checkbox" checked={pinyin} onChange={(e) => setPinyin((e.target as HTMLInputElement).checked)} />
          同时匹配拼音
        </label>
        <button type="submit" className={primary} aria-disabled={busy}>
          添加
        </button>
      </form>
      <FormError id="lx-word-error" error={error} />
      <Heading title={`词库（${data.list.length} 条）`}>
        <button type="button" className={button} onClick={reload} disabled={!data.file || busy}>
          从文件重新加载
        </button>
      </Heading>
      {data.problems.length > 0 && (
        <ul className="mb-3 text-xs text-danger" aria-label="无法识别的行">
          {data.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <Table
        label="敏感词"
        rows={data.list}
        rowKey={(w) => w.word}
        empty="词库为空"
        columns={[
          { label: '敏感词', cell: (w) => <span className="break-all">{w.word}</span> },
          { label: '处置', nowrap: true, cell: (w) => (w.verdict === 'block' ? '拦截' : '放行待复核') + (w.pinyin ? ' · 拼音' : '') },
          { label: '来源', nowrap: true, cell: (w) => (w.source === 'file' ? '词库文件' : '控制台') },
          { label: '时间', nowrap: true, cell: (w) => when(iso(w.createTime)) },
          {
            label: '操作',
            nowrap: true,
            cell: (w) => (
              <button type="button" className={danger} onClick={() => remove(w)} aria-label={`删除 ${w.word}`}>
                删除
              </button>
            )
          }
        ]}
      />
    </>
  )
}
