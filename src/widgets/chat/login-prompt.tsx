import { openLogin } from '../../core/stores'
import { Glyph } from './glyphs'
import { t } from './i18n'

// Loaded for visitors only (chat.tsx), with the login dialog: a signed-in page never needs it.

/** Logged out: what the chat is, and a 登录 button. `fill`: the rest of the bubble's panel. */
export function LoginPrompt({ fill }: { fill?: boolean }) {
  return (
    <div
      part="base"
      className={`${fill ? 'flex-1 min-h-0' : 'h-[var(--lingxi-chat-height,100%)] min-h-[240px]'} grid place-items-center p-6 text-center bg-bg text-ink`}
    >
      <div className="flex flex-col items-center gap-2">
        <span className="size-14 grid place-items-center rounded-2xl bg-primary/15 text-primary">
          <Glyph name="chat" className="size-7" />
        </span>
        <h2 className="mt-2 text-lg font-semibold">{t('登录后开始对话')}</h2>
        <p className="text-sm text-muted">{t('多话题、角色扮演，回答实时生成。')}</p>
        <button type="button" onClick={() => openLogin()} className="mt-3 h-10 px-6 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110">
          {t('登录')}
        </button>
      </div>
    </div>
  )
}
