// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from 'vitest'
import { $allowedPaths, $menu, activeMenuCode, allowedPaths, buildMenu, defaultMenu, firstLeafPath, guardRedirect, isPathAllowed } from '../../src/core/menu'
import { grantedCodes, hasPermission } from '../../src/core/permissions'
import { $permissionTree, $systemConfig, $token, $user } from '../../src/core/stores'
import { PREMISSION_MENUS_KEY } from '../../src/core/wire'
import type { PermissionNode } from '../../src/core/types'
import { fullTree, node, systemConfig, user } from './helpers/fixtures'
import { resetCore } from './helpers/reset'

const codes = (menu: { permissionCode: string }[]) => menu.map((m) => m.permissionCode)

describe('buildMenu', () => {
  it('keeps checked nodes the config knows, in tree order, with the config names and paths', () => {
    const menu = buildMenu(fullTree(), systemConfig)
    expect(codes(menu)).toEqual([
      'AI_TOOLS_CHAT',
      'AI_TOOLS_ROLE',
      'AI_TOOLS_PAINTING',
      'AI_TOOLS_MUSIC',
      'AI_TOOLS_HOT',
      'AI_TOOLS_GALLERY',
      'AI_TOOLS_IMAGE',
      'AI_TOOLS_ORDER_PLATFORM',
      'AI_TOOLS_ORDER_PLATFORM_QUALITY'
    ])
    expect(menu[0]).toEqual({ permissionName: 'AI对话', permissionCode: 'AI_TOOLS_CHAT', path: '/chat', icon: 'chat' })
  })

  it('drops unchecked nodes', () => {
    const menu = buildMenu([node('AI_TOOLS_CHAT', 0), node('AI_TOOLS_HOT', 1)], systemConfig)
    expect(codes(menu)).toEqual(['AI_TOOLS_HOT'])
  })

  it('drops codes the config does not know', () => {
    const menu = buildMenu([node('AI_TOOLS_TELEPORT'), node('AI_TOOLS_CHAT')], systemConfig)
    expect(codes(menu)).toEqual(['AI_TOOLS_CHAT'])
  })

  it('keeps AI_TOOLS_SD as a hidden child of painting', () => {
    const painting = buildMenu(fullTree(), systemConfig).find((m) => m.permissionCode === 'AI_TOOLS_PAINTING')
    expect(painting?.children).toEqual([{ permissionName: 'SD绘画', permissionCode: 'AI_TOOLS_SD', path: '/sd', icon: 'sd', hidden: true }])
  })

  it('an unchecked parent hides its checked children', () => {
    const menu = buildMenu([node('AI_TOOLS_PAINTING', 0, [node('AI_TOOLS_SD', 1)]), node('AI_TOOLS_CHAT')], systemConfig)
    expect(codes(menu)).toEqual(['AI_TOOLS_CHAT'])
  })

  it('an unchecked child is dropped under a checked parent', () => {
    const [painting] = buildMenu([node('AI_TOOLS_PAINTING', 1, [node('AI_TOOLS_SD', 0)])], systemConfig)
    expect(painting).toEqual({ permissionName: 'AI绘画', permissionCode: 'AI_TOOLS_PAINTING', path: '/mj', icon: 'painting' })
  })

  it('tolerates a missing childList and an empty tree', () => {
    // Off the wire's shape (the server always sends childList): a tree stored by an older client.
    expect(buildMenu([{ permissionCode: 'AI_TOOLS_CHAT', checked: 1 } as PermissionNode], systemConfig)).toHaveLength(1)
    expect(buildMenu([], systemConfig)).toEqual([])
  })
})

describe('defaultMenu', () => {
  it('is every configured tool except SD and the order platforms, in config order', () => {
    expect(codes(defaultMenu(systemConfig))).toEqual([
      'AI_TOOLS_CHAT',
      'AI_TOOLS_ROLE',
      'AI_TOOLS_PAINTING',
      'AI_TOOLS_MUSIC',
      'AI_TOOLS_HOT',
      'AI_TOOLS_GALLERY',
      'AI_TOOLS_IMAGE'
    ])
  })
})

describe('firstLeafPath', () => {
  it('is the first visible entry without visible children', () => {
    expect(firstLeafPath(buildMenu(fullTree(), systemConfig))).toBe('/chat')
  })

  it('painting with only the hidden SD child is a leaf', () => {
    const menu = buildMenu([node('AI_TOOLS_PAINTING', 1, [node('AI_TOOLS_SD')]), node('AI_TOOLS_CHAT')], systemConfig)
    expect(firstLeafPath(menu)).toBe('/mj')
  })

  it('skips hidden entries and descends into visible children', () => {
    expect(
      firstLeafPath([
        { permissionName: 'x', permissionCode: 'X', path: '/x', icon: '', hidden: true },
        {
          permissionName: 'p',
          permissionCode: 'P',
          path: '/p',
          icon: '',
          children: [{ permissionName: 'c', permissionCode: 'C', path: '/p/c', icon: '' }]
        }
      ])
    ).toBe('/p/c')
  })

  it('is null for an empty menu or only hidden entries', () => {
    expect(firstLeafPath([])).toBeNull()
    expect(firstLeafPath(buildMenu([node('AI_TOOLS_SD')], systemConfig))).toBeNull()
  })
})

describe('allowed paths and the guard', () => {
  const menu = buildMenu([node('AI_TOOLS_HOT'), node('AI_TOOLS_ORDER_PLATFORM'), node('AI_TOOLS_PAINTING', 1, [node('AI_TOOLS_SD')])], systemConfig)

  it('lists menu paths (hidden too), the pathMap routes of held codes, and /usercenter', () => {
    expect(allowedPaths(menu, systemConfig)).toEqual(['/hotNew', '/orders', '/mj', '/sd', '/mjHelper', '/orders/ordersDetail', '/usercenter'])
  })

  it('matches exactly or below a segment boundary', () => {
    const allowed = ['/orders/ordersDetail', '/chat']
    expect(isPathAllowed('/orders/ordersDetail/1/2', allowed)).toBe(true)
    expect(isPathAllowed('/orders/ordersDetail', allowed)).toBe(true)
    expect(isPathAllowed('/chat/', allowed)).toBe(true)
    expect(isPathAllowed('/chat?x=1', allowed)).toBe(true)
    expect(isPathAllowed('/chatty', allowed)).toBe(false)
    expect(isPathAllowed('/orders', allowed)).toBe(false)
    expect(isPathAllowed('/orders/ordersDetail/1/2', ['/orders'])).toBe(true)
  })

  it('lets allowed paths through, detail routes included', () => {
    expect(guardRedirect('/hotNew', menu, systemConfig)).toBeNull()
    expect(guardRedirect('/orders/ordersDetail/7/9', menu, systemConfig)).toBeNull()
    expect(guardRedirect('/sd', menu, systemConfig)).toBeNull()
    expect(guardRedirect('/usercenter', menu, systemConfig)).toBeNull()
  })

  it('redirects elsewhere to the first leaf', () => {
    expect(guardRedirect('/chat', menu, systemConfig)).toBe('/hotNew')
    expect(guardRedirect('/miracleOrders/ordersDetail/1/2', menu, systemConfig)).toBe('/hotNew')
  })

  it('redirects to /usercenter?id=general when nothing is allowed', () => {
    expect(guardRedirect('/chat', [], systemConfig)).toBe('/usercenter?id=general')
    expect(guardRedirect('/usercenter', [], systemConfig)).toBeNull()
    expect(guardRedirect('/chat', buildMenu([node('AI_TOOLS_SD')], systemConfig), systemConfig)).toBe('/usercenter?id=general')
  })
})

describe('activeMenuCode', () => {
  const menu = buildMenu(fullTree(), systemConfig)
  it.each([
    ['/chat', 'AI_TOOLS_CHAT'],
    ['/mj', 'AI_TOOLS_PAINTING'],
    ['/sd', 'AI_TOOLS_PAINTING'],
    ['/mjHelper', 'AI_TOOLS_PAINTING'],
    ['/orders', 'AI_TOOLS_ORDER_PLATFORM'],
    ['/orders/ordersDetail/1/2', 'AI_TOOLS_ORDER_PLATFORM'],
    ['/miracleOrders/ordersDetail/1/2', 'AI_TOOLS_ORDER_PLATFORM_QUALITY'],
    ['/usercenter', null]
  ])('%s → %s', (path, code) => {
    expect(activeMenuCode(path, menu, systemConfig)).toBe(code)
  })
})

describe('stores', () => {
  beforeEach(resetCore)

  it('$menu is empty until system config arrives', () => {
    expect($menu.get()).toEqual([])
  })

  it('$menu is the default without a token', () => {
    $systemConfig.set(systemConfig)
    expect(codes($menu.get())).toEqual(codes(defaultMenu(systemConfig)))
  })

  it('$menu follows the tree with a token, and $allowedPaths follows $menu', () => {
    $systemConfig.set(systemConfig)
    $token.set('t')
    $permissionTree.set([node('AI_TOOLS_HOT')])
    expect(codes($menu.get())).toEqual(['AI_TOOLS_HOT'])
    expect($allowedPaths.get()).toEqual(['/hotNew', '/usercenter'])
    $permissionTree.set([node('AI_TOOLS_CHAT')])
    expect($allowedPaths.get()).toEqual(['/chat', '/usercenter'])
  })

  it('grantedCodes lists checked codes under checked parents', () => {
    expect(grantedCodes([node('AI_TOOLS_PAINTING', 1, [node('AI_TOOLS_SD')]), node('AI_TOOLS_HOT', 0, [node('AI_TOOLS_SD')])])).toEqual([
      'AI_TOOLS_PAINTING',
      'AI_TOOLS_SD'
    ])
  })

  it('hasPermission reads the user codes and the stored `premission menus` codes', () => {
    expect(hasPermission('AI_TOOLS_SD')).toBe(false)
    localStorage.setItem('premission menus', JSON.stringify(['AI_TOOLS_HOT']))
    expect(PREMISSION_MENUS_KEY).toBe('premission menus')
    expect(hasPermission('AI_TOOLS_HOT')).toBe(true)
    expect(hasPermission('AI_TOOLS_SD')).toBe(false)
    $user.set(user)
    expect(hasPermission('AI_TOOLS_SD')).toBe(true)
    localStorage.setItem('premission menus', '{garbage')
    $user.set(null)
    expect(hasPermission('AI_TOOLS_HOT')).toBe(false)
  })
})
