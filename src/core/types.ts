/**
 * The wire objects of lingxi/core's public API. They are the server's (`@lingxi/server/wire`,
 * inferred from its zod schemas), written out here because the npm package's .d.ts must stand on
 * its own: the server and zod are not part of it. types.test.ts fails the type check when one of
 * them and the server's differ; everything else in the client imports the server's types directly.
 */

/** The logged-in user: `POST /user/info` plus the token login returned. */
export interface LoginUser {
  accessToken?: string
  accountId: string
  userId: string
  phone: string
  nickName: string
  avatarUrl: string
  /** 0 = expired (show "expired" instead of usage numbers), 1 = valid. */
  state: 0 | 1
  tokens: number
  mjCount: number
  sunoCount: number
  permissionCodes: string[]
}

/** What login, login-without-code, modify-phone and the redirect login carry. */
export interface LoginResponse {
  accessToken: string
  accountId: string
  phone: string
}

export interface SendCodeResponse {
  /** 1 = this phone logs in without a code (allowlisted accounts). */
  withoutCode: 0 | 1
}

/** A node of `userPermission`'s `bodyList`. */
export interface PermissionNode {
  permissionCode: string
  /** 1 = granted. An unchecked node hides its children. */
  checked: 0 | 1
  childList: PermissionNode[]
}

export interface PermissionMeta {
  icon: string
  path: string
  permissionName: string
}

/** `GET /config/system.json` as served. */
export interface SystemConfig {
  siteName?: string
  cookieDomain?: string
  /** Menu entries by permission code, in menu order. */
  permissionCodes: Record<string, PermissionMeta>
  /** Extra routes (detail pages, helpers) and the permission code that opens them. */
  pathMap?: { production?: Record<string, string> }
  /** Whether WeChat login is configured (the login dialog offers it). */
  wechatLogin: boolean
}

/** A menu entry: a permission node the user holds, with its system.json meta. */
export interface MenuItem {
  permissionName: string
  permissionCode: string
  path: string
  icon: string
  /** Routable but not listed (AI_TOOLS_SD). */
  hidden?: true
  children?: MenuItem[]
}

export interface CountryEntry {
  /** Chinese name, e.g. 中国 */
  countryName: string
  /** Full pinyin, lowercase, no tones or spaces, e.g. zhongguo */
  countryPinyin: string
  /** Calling code without '+', e.g. 86 */
  phoneCode: string
  /** ISO 3166-1 alpha-2, e.g. CN */
  countryCode: string
  /** Pinyin initials, e.g. zg (filled by loadCountries, used by searchCountries). */
  countryInitials?: string
}
