import { useStore } from '@nanostores/react'
import { $menu } from '../../core/menu'
import { $user, openLogin } from '../../core/stores'
import { Icon, Logo } from '../../ui/icons'
import { blurbOf } from '../blurbs'
import '../rest-css'
import { routes } from '../routes'

const blurbs = new Map(routes.map((r) => [r.path, blurbOf(r)]))

/** The entry page: what Lingxi offers, the tools on the menu, and the way in. */
export default function EntryScreen() {
  const user = useStore($user)
  const menu = useStore($menu).filter((m) => !m.hidden)
  return (
    <div className="max-w-5xl mx-auto">
      <section className="rounded-3xl border border-line bg-gradient-to-br from-primary/20 via-surface to-bg p-8 md:p-12">
        <Logo className="size-14" />
        <h1 className="mt-6 text-3xl md:text-4xl font-bold leading-tight">
          灵犀，<span className="text-primary">心有灵犀</span>的 AI 工具箱
        </h1>
        <p className="mt-4 max-w-2xl text-muted text-base">对话、绘画、音乐、热点、图床……一个手机号登录，全部工具随手可用；也能作为组件嵌入你的网站。</p>
        {!user && (
          <button
            type="button"
            onClick={() => openLogin()}
            className="mt-8 h-12 px-8 rounded-xl bg-primary text-primary-ink text-base font-semibold hover:brightness-110"
          >
            手机号登录，免费体验
          </button>
        )}
      </section>
      <h2 className="mt-10 mb-4 text-lg font-semibold">全部工具</h2>
      <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
        {menu.map((m) => (
          <li key={m.permissionCode}>
            <a href={m.path} className="group flex gap-4 h-full p-5 rounded-card border border-line bg-surface hover:border-primary">
              <span className="size-11 shrink-0 grid place-items-center rounded-xl bg-primary/15 text-primary">
                <Icon name={m.icon} className="size-6" />
              </span>
              <span>
                <span className="block font-semibold group-hover:text-primary">{m.permissionName}</span>
                <span className="mt-1 block text-sm text-muted">{blurbs.get(m.path)}</span>
              </span>
            </a>
          </li>
        ))}
      </ul>
    </div>
  )
}
