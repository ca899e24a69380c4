import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runAdmin } from '../src/admin.js'
import { AdminError, grantPermissions, listAccounts, parsePhoneArgument, revokePermissions, setAccountState } from '../src/admin/commands.js'
import { DataDirBusyError, lockDataDir } from '../src/db/data-dir-lock.js'
import { useHarness } from './helpers/database-hooks.js'

const ctx = useHarness()

async function admin(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await runAdmin(argv, {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    env: { LOGIN_WITHOUT_CODE_PHONES: '86:13800000000' },
    open: async () => ctx.db
  })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

describe('admin commands', () => {
  it('parses the phone forms operators type', () => {
    expect(parsePhoneArgument('13800138000')).toEqual({ enCode: '86', phone: '13800138000' })
    expect(parsePhoneArgument('86:13800138000')).toEqual({ enCode: '86', phone: '13800138000' })
    expect(parsePhoneArgument('+8613800138000')).toEqual({ enCode: '86', phone: '13800138000' })
    expect(parsePhoneArgument('+1 201 555 0123')).toEqual({ enCode: '1', phone: '2015550123' })
    expect(parsePhoneArgument('12345')).toBeUndefined()
  })

  it('lists accounts, or the one with a phone', async () => {
    const a = await ctx.h.login('13800138000')
    await ctx.h.login('13900139000')
    expect((await listAccounts(ctx.db.db)).map((x) => x.phone)).toEqual(['13800138000', '13900139000'])
    expect((await listAccounts(ctx.db.db, { phone: '+8613800138000' })).map((x) => x.id)).toEqual([a.accountId])
    const res = await admin('list')
    expect(res.code).toBe(0)
    expect(res.out.split('\n')[0]).toMatch(/^ID\s+PHONE\s+STATE\s+TOKENS\s+MJ\s+SUNO\s+CREATED\s+PERMISSIONS$/)
    expect(res.out).toContain('+86 13800138000')
    expect(res.out).toContain('+86 13900139000')
    const one = await admin('list', '--phone', '13900139000')
    expect(one.out).not.toContain('13800138000')
    expect((await admin('list', '--phone', '13700137000')).out).toBe('No account with phone 13700137000.')
  })

  it('grants and revokes codes, which the API then enforces', async () => {
    const { accessToken, accountId } = await ctx.h.login('13800138000')
    const granted = await grantPermissions(ctx.db.db, '13800138000', ['AI_TOOLS_ORDER_PLATFORM', 'ai_tools_chat'])
    expect(granted.permissionCodes).toContain('AI_TOOLS_ORDER_PLATFORM')
    expect(granted.permissionCodes.filter((c) => c === 'AI_TOOLS_CHAT')).toHaveLength(1)

    const res = await admin('revoke', accountId, 'AI_TOOLS_CHAT', 'AI_TOOLS_SD')
    expect(res.code).toBe(0)
    expect(res.out).toContain('Revoked.')
    const info = await ctx.h.post<{ permissionCodes: string[] }>('/api/v1/user/info', {}, { token: accessToken })
    expect(info.body.data.permissionCodes).toEqual([
      'AI_TOOLS_ROLE',
      'AI_TOOLS_PAINTING',
      'AI_TOOLS_MUSIC',
      'AI_TOOLS_HOT',
      'AI_TOOLS_GALLERY',
      'AI_TOOLS_IMAGE',
      'AI_TOOLS_ORDER_PLATFORM'
    ])
    const tree = await ctx.h.post<{ bodyList: { permissionCode: string; checked: number }[] }>(
      '/api/v1/userPermission',
      { appPermissionCode: 'AI_TOOLS' },
      { token: accessToken }
    )
    expect(tree.body.data.bodyList.find((n) => n.permissionCode === 'AI_TOOLS_CHAT')?.checked).toBe(0)
  })

  it('refuses unknown codes and changes nothing', async () => {
    const { accountId } = await ctx.h.login('13800138000')
    await expect(grantPermissions(ctx.db.db, accountId, ['AI_TOOLS_TELEPORT'])).rejects.toThrow(AdminError)
    const res = await admin('grant', accountId, 'AI_TOOLS_CHAT', 'AI_TOOLS_TELEPORT')
    expect(res.code).toBe(2)
    expect(res.err).toContain('Unknown permission code: AI_TOOLS_TELEPORT. Known codes: AI_TOOLS_CHAT')
    const [account] = await listAccounts(ctx.db.db)
    expect(account?.permissionCodes).not.toContain('AI_TOOLS_TELEPORT')
    await expect(revokePermissions(ctx.db.db, accountId, [])).rejects.toThrow('Name at least one permission code')
  })

  it('sets the state, which blocks tools', async () => {
    await ctx.h.login('13800138000')
    expect((await setAccountState(ctx.db.db, '86:13800138000', '0')).state).toBe(0)
    expect((await admin('state', '13800138000', '1')).out).toContain('state 1')
    const bad = await admin('state', '13800138000', '2')
    expect(bad.code).toBe(2)
    expect(bad.err).toContain('State must be 0')
  })

  it('explains unknown accounts, commands and missing arguments with nonzero exit codes', async () => {
    expect(await admin('grant', '13700137000', 'AI_TOOLS_CHAT')).toMatchObject({
      code: 1,
      err: expect.stringContaining('No account with phone +86 13700137000')
    })
    expect(await admin('state', '00000000-0000-4000-8000-000000000000', '1')).toMatchObject({ code: 1, err: expect.stringContaining('No account with id') })
    expect(await admin('grant', 'not-a-phone', 'AI_TOOLS_CHAT')).toMatchObject({ code: 2 })
    expect(await admin('grant', '13800138000')).toMatchObject({ code: 2, err: expect.stringContaining('Usage') })
    expect(await admin('frobnicate')).toMatchObject({ code: 2, err: expect.stringContaining('Unknown command') })
    expect(await admin('list', '--verbose')).toMatchObject({ code: 2 })
  })

  it('prints help and the allowlist hint', async () => {
    const help = await admin('--help')
    expect(help.code).toBe(0)
    expect(help.out).toContain('lingxi-admin grant <phone|accountId> <CODE...>')
    expect((await admin()).code).toBe(2)
    const hint = await admin('allowlist')
    expect(hint.out).toContain('LOGIN_WITHOUT_CODE_PHONES')
    expect(hint.out).toContain('Current value here: 86:13800000000')
  })
})

describe('embedded database lock', () => {
  const holder = (pid: number) => JSON.stringify({ pid, host: hostname(), owner: 'server', since: 'earlier' })

  it('refuses a second holder while the first is alive, and takes over a dead one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lingxi-lock-'))
    const lock = join(dir, 'lingxi.lock')
    // Held by a live process (our parent stands in for a running server).
    writeFileSync(lock, holder(process.ppid))
    expect(() => lockDataDir(dir, 'lingxi-admin')).toThrow(DataDirBusyError)

    const err: string[] = []
    const code = await runAdmin(['list'], { out: () => {}, err: (line) => err.push(line), env: { DATA_DIR: dir } })
    expect(code).toBe(1)
    expect(err.join('\n')).toContain('Stop the Lingxi server and run this command again')
    expect(err.join('\n')).toContain('DATABASE_URL')
    expect(existsSync(lock)).toBe(true)

    // Left behind by a process that is gone.
    writeFileSync(lock, holder(2 ** 22 + 12345))
    const taken = lockDataDir(dir, 'lingxi-admin')
    expect(() => lockDataDir(dir, 'server')).toThrow(DataDirBusyError)
    taken.release()
    expect(existsSync(lock)).toBe(false)
  })
})
