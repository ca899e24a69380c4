import type { LoginUser } from '../../core/types'

/** The person's picture, or the first character of their nickname. */
export function Avatar({ user, size }: { user: LoginUser; size: string }) {
  if (user.avatarUrl) return <img src={user.avatarUrl} alt="" className={`${size} rounded-full object-cover`} />
  const initial = (user.nickName || '灵').slice(0, 1)
  return (
    <span aria-hidden="true" className={`${size} shrink-0 rounded-full grid place-items-center bg-primary text-primary-ink font-bold`}>
      {initial}
    </span>
  )
}
