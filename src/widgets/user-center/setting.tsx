import { useEffect, useRef, useState } from 'react'
import { ApiError, notifyError } from '../../core/api'
import { logout } from '../../core/auth'
import { confirm, toast } from '../../core/emit'
import { maskPhone } from '../../core/format'
import { $loginOpen } from '../../core/stores'
import type { LoginUser } from '../../core/types'
import { UPLOAD_ACCEPT, uploadImage } from '../../core/upload'
import { UNAUTHORIZED_CODES } from '../../core/wire'
import type * as On from '../../ui/events'
import { Avatar } from './avatar'
import { NICKNAME_MAX, saveProfile, validateNickName } from './state'

// 个人设置: nickname, avatar, phone and logging out.

export function Setting({ user }: { user: LoginUser }) {
  const [name, setName] = useState(user.nickName ?? '')
  const [nameError, setNameError] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const [avatarProgress, setAvatarProgress] = useState<number | null>(null)
  const [avatarError, setAvatarError] = useState<string | null>(null)
  const fileRef = useRef<HTMLInputElement>(null)
  const nameRef = useRef<HTMLInputElement>(null)

  useEffect(() => setName(user.nickName ?? ''), [user.nickName])

  async function saveName(event: On.Submit) {
    event.preventDefault()
    if (saving) return
    const name = nameRef.current?.value ?? ''
    const problem = validateNickName(name)
    setNameError(problem)
    if (problem) return
    if (name.trim() === user.nickName) return toast('昵称未改变', 'info')
    setSaving(true)
    try {
      await saveProfile({ nickName: name })
      toast('昵称已保存', 'success')
    } catch (e) {
      if (e instanceof ApiError && !UNAUTHORIZED_CODES.includes(e.code)) setNameError(e.message)
      else notifyError(e)
    } finally {
      setSaving(false)
    }
  }

  async function changeAvatar(file: File | undefined) {
    if (!file || avatarProgress !== null) return
    setAvatarError(null)
    setAvatarProgress(0)
    try {
      const image = await uploadImage(file, { purpose: 'avatar', onProgress: setAvatarProgress })
      await saveProfile({ avatarUrl: image.url })
      toast('头像已更新', 'success')
    } catch (e) {
      if (e instanceof ApiError && UNAUTHORIZED_CODES.includes(e.code)) notifyError(e)
      else setAvatarError(e instanceof Error && e.message ? e.message : '上传失败，请稍后重试')
    } finally {
      setAvatarProgress(null)
    }
  }

  async function handleLogout() {
    if (await confirm({ title: '退出登录', message: '确定要退出当前账号吗？', confirmText: '退出' })) await logout()
  }

  return (
    <div className="flex flex-col gap-4">
      <div className="rounded-card border border-line bg-surface p-4 cq-md:p-5 flex items-center gap-4">
        <Avatar user={user} size="size-16" />
        <div className="min-w-0 flex-1">
          <p className="font-semibold">头像</p>
          <p className="text-xs text-muted">PNG、JPEG、WebP 或 GIF，不超过 10 MB</p>
          {avatarProgress !== null && (
            <div
              role="progressbar"
              aria-label="上传头像"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={Math.round(avatarProgress * 100)}
              className="mt-2 h-1.5 max-w-60 rounded-full bg-raised overflow-hidden"
            >
              <div className="h-full bg-primary transition-[width]" style={{ width: `${Math.round(avatarProgress * 100)}%` }} />
            </div>
          )}
          {avatarError && (
            <p role="alert" className="mt-1 text-sm text-danger">
              {avatarError}
            </p>
          )}
        </div>
        <button
          type="button"
          onClick={() => fileRef.current?.click()}
          aria-disabled={avatarProgress !== null}
          className="h-9 px-4 shrink-0 rounded-lg border border-line hover:border-primary hover:text-primary"
        >
          {avatarProgress !== null ? '上传中…' : '更换头像'}
        </button>
        <input
          ref={fileRef}
          type="file"
          accept={UPLOAD_ACCEPT}
          aria-hidden="true"
          tabIndex={-1}
          className="sr-only"
          onChange={(e) => {
            const input = e.target as HTMLInputElement
            void changeAvatar(input.files?.[0])
            input.value = ''
          }}
        />
      </div>

      <form onSubmit={saveName} noValidate className="rounded-card border border-line bg-surface p-4 cq-md:p-5">
        <label htmlFor="lx-nickname" className="block font-semibold">
          昵称
        </label>
        <div className="mt-3 flex flex-col cq-md:flex-row gap-2">
          <input
            id="lx-nickname"
            ref={nameRef}
            value={name}
            onInput={(e) => {
              setName((e.target as HTMLInputElement).value)
              setNameError(null)
            }}
            maxLength={NICKNAME_MAX * 2}
            placeholder="给自己起个名字"
            aria-invalid={nameError ? true : undefined}
            aria-describedby={nameError ? 'lx-nickname-error' : undefined}
            className="w-full cq-md:flex-1 min-w-0 h-11 px-3 rounded-lg border border-line bg-raised text-ink placeholder:text-muted outline-none focus:border-primary"
          />
          <button type="submit" aria-disabled={saving} className="h-11 px-6 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110">
            {saving ? '保存中…' : '保存'}
          </button>
        </div>
        {nameError && (
          <p id="lx-nickname-error" role="alert" className="mt-2 text-sm text-danger">
            {nameError}
          </p>
        )}
      </form>

      <div className="rounded-card border border-line bg-surface p-4 cq-md:p-5 flex items-center gap-4">
        <div className="min-w-0 flex-1">
          <p className="font-semibold">手机号</p>
          <p className="text-sm text-muted">{maskPhone(user.phone)}</p>
        </div>
        <button
          type="button"
          onClick={() => $loginOpen.set('modify-phone')}
          className="h-9 px-4 shrink-0 rounded-lg border border-line hover:border-primary hover:text-primary"
        >
          修改手机号
        </button>
      </div>

      <button type="button" onClick={handleLogout} className="h-11 rounded-lg border border-danger/50 text-danger hover:bg-danger/10">
        退出登录
      </button>
    </div>
  )
}
