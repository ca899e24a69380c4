import { useStore } from '@nanostores/react'
import { $user, openLogin } from '../../core/stores'
import { Icon } from '../../ui/icons'
import { blurbOf } from '../blurbs'
import '../rest-css'
import type { RouteInfo } from '../routes'

/** A tool's page until its widget ships: what it will do, clearly marked as coming. */
export default function ToolScreen({ route }: { route: RouteInfo }) {
  const user = useStore($user)
  return (
    <section aria-labelledby="tool-title" className="max-w-xl mx-auto mt-6 md:mt-16 text-center rounded-3xl border border-line bg-surface px-6 py-12">
      <span className="mx-auto size-16 grid place-items-center rounded-2xl bg-primary/15 text-primary">
        <Icon name={route.icon} className="size-8" />
      </span>
      <h1 id="tool-title" className="mt-6 text-2xl font-bold">
        {route.title}
      </h1>
      <p className="mt-3 text-muted">{blurbOf(route)}</p>
      <p className="mt-6 inline-flex items-center gap-2 rounded-full border border-primary/40 bg-primary/10 px-4 py-1.5 text-sm text-primary">
        <Icon name="spark" className="size-4" />
        即将上线，敬请期待
      </p>
      {!user && (
        <div className="mt-8">
          <button type="button" onClick={() => openLogin()} className="h-11 px-6 rounded-xl bg-primary text-primary-ink font-semibold hover:brightness-110">
            登录后使用
          </button>
        </div>
      )}
    </section>
  )
}
