import { useStore } from '@nanostores/react'
import { useState } from 'react'
import { History, PublishButton } from './history'
import { Lightbox } from './lightbox'
import { MjComposer } from './mj-composer'
import { $paintingTasks, $workList, clearWorkList, imageFileName, PAINTING_LIMITS, type PaintingTask } from './state'
import { TaskCard } from './task-card'

/** /mj: the composer, the working list (newest first, reset at 12 jobs) and the paged history. */
export default function MjView({ prompt }: { prompt?: string }) {
  const work = useStore($workList)
  const [open, setOpen] = useState<PaintingTask | null>(null)
  const tasks = useStore($paintingTasks)
  const shown = open ? (tasks[open.taskId] ?? open) : null

  return (
    <div className="max-w-6xl mx-auto grid gap-5 cq-lg:grid-cols-[minmax(300px,380px)_1fr] items-start">
      <div className="cq-lg:sticky cq-lg:top-20">
        <MjComposer initialPrompt={prompt} />
      </div>
      <div className="min-w-0 space-y-6">
        <section aria-labelledby="lx-work-title">
          <div className="flex items-center gap-2">
            <h2 id="lx-work-title" className="text-lg font-semibold">
              本次创作
            </h2>
            <span className="text-xs text-muted">
              {work.length}/{PAINTING_LIMITS.workList}，满 {PAINTING_LIMITS.workList} 个后重新开始
            </span>
            {work.length > 0 && (
              <button type="button" onClick={clearWorkList} className="ml-auto h-8 px-3 rounded-md text-sm text-muted hover:text-ink hover:bg-raised">
                清空
              </button>
            )}
          </div>
          {work.length === 0 ? (
            <p className="mt-3 rounded-card border border-dashed border-line p-8 text-center text-sm text-muted">
              写下画面描述并点「生成」，四宫格会在这里逐步出现。
            </p>
          ) : (
            <ol className="mt-3 space-y-3" aria-label="本次创作的任务" data-testid="work-list">
              {[...work].reverse().map((id) => (
                <li key={id} className="scroll-mt-20">
                  <TaskCard taskId={id} onOpen={setOpen} />
                </li>
              ))}
            </ol>
          )}
        </section>
        <History kind="mj" onOpen={setOpen} />
      </div>
      <Lightbox
        image={
          shown?.imageUrl
            ? { url: shown.imageUrl, width: shown.width, height: shown.height, prompt: shown.prompt, fileName: imageFileName(shown), demo: shown.demo }
            : null
        }
        onClose={() => setOpen(null)}
        actions={shown && <PublishButton task={shown} />}
      />
    </div>
  )
}
