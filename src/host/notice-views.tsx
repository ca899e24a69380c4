import { openLogin } from '../core/stores'
import type { Refused } from './notice'
import './rest-css'

// The notices themselves load only when one shows (most pages never need them).

const CARD = '/usercenter?id=card'

const box = 'mb-5 flex flex-wrap items-center gap-x-3 gap-y-2 rounded-xl border px-4 py-3 text-sm'
const link = 'font-semibold text-primary underline underline-offset-2'

/** The account's state on a tool it cannot use, and what to do: redeem a card, or ask the operator. */
function AccountNotice({ text }: { text: string }) {
  return (
    <div role="status" data-testid="account-notice" className={`${box} border-danger/50 bg-danger/10`}>
      <p className="text-ink">
        {text}可在
        <a href={CARD} className={`${link} mx-1`}>
          卡密兑换
        </a>
        中充值，或联系管理员。
      </p>
    </div>
  )
}

/** Why the page is not the one asked for (the guard sent the person here), and login where it helps. */
function RefusedNotice({ refused, onClose }: { refused: Refused; onClose: () => void }) {
  return (
    <div role="status" data-testid="route-notice" className={`${box} border-line bg-surface`}>
      <p className="flex-1 min-w-0 text-ink">
        {refused.signedIn
          ? `当前账号没有「${refused.title}」的使用权限，已为你打开可用的页面。如需开通，请联系管理员。`
          : `「${refused.title}」需要登录后使用。`}
      </p>
      {!refused.signedIn && (
        <button type="button" onClick={() => openLogin()} className="h-8 px-4 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110">
          登录
        </button>
      )}
      <button type="button" onClick={onClose} className="h-8 px-3 rounded-lg border border-line text-muted hover:text-ink">
        知道了
      </button>
    </div>
  )
}

/** What the page says above the tool: why the guard sent the person here, and the account's state. */
export default function Notices({ refused, blocked, onClose }: { refused: Refused | null; blocked: string | null; onClose: () => void }) {
  return (
    <>
      {refused && <RefusedNotice refused={refused} onClose={onClose} />}
      {blocked && <AccountNotice text={blocked} />}
    </>
  )
}
