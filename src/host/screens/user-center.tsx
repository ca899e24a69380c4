import { useStore } from '@nanostores/react'
import { $user, formatCount, openLogin } from '../../core'

const tabs = [
  { id: 'general', label: '总览' },
  { id: 'card', label: '卡密兑换' },
  { id: 'setting', label: '设置' },
]

/** The personal center: the balances today; recharge cards, logs and settings are coming. */
export default function UserCenterScreen({ tab }: { tab: string }) {
  const user = useStore($user)
  const current = tabs.some((t) => t.id === tab) ? tab : 'general'
  if (!user) {
    return (
      <section className="max-w-xl mx-auto mt-16 text-center">
        <h1 className="text-2xl font-bold">个人中心</h1>
        <p className="mt-3 text-muted">登录后查看额度与记录。</p>
        <button type="button" onClick={() => openLogin()} className="mt-6 h-11 px-6 rounded-xl bg-primary text-primary-ink font-semibold">
          登录
        </button>
      </section>
    )
  }
  const expired = user.state === 0
  return (
    <section className="max-w-4xl mx-auto">
      <h1 className="text-2xl font-bold">个人中心</h1>
      <nav aria-label="个人中心" className="mt-5 flex gap-2 border-b border-line">
        {tabs.map((t) => (
          <a
            key={t.id}
            href={`/usercenter?id=${t.id}`}
            aria-current={t.id === current ? 'page' : undefined}
            className={`px-4 h-10 grid place-items-center border-b-2 -mb-px ${t.id === current ? 'border-primary text-primary' : 'border-transparent text-muted hover:text-ink'}`}
          >
            {t.label}
          </a>
        ))}
      </nav>
      {current === 'general' ? (
        <ul className="mt-6 grid gap-3 sm:grid-cols-3">
          {[
            ['对话额度', user.tokens],
            ['绘画次数', user.mjCount],
            ['音乐次数', user.sunoCount],
          ].map(([label, value]) => (
            <li key={label} className="rounded-card border border-line bg-surface p-5">
              <p className="text-sm text-muted">{label}</p>
              <p className={`mt-2 text-3xl font-bold ${expired ? 'text-danger' : 'text-primary'}`}>{expired ? '已过期' : formatCount(Number(value))}</p>
            </li>
          ))}
        </ul>
      ) : (
        <p className="mt-10 text-center text-muted">{current === 'card' ? '卡密兑换' : '设置'}即将上线，敬请期待。</p>
      )}
    </section>
  )
}
