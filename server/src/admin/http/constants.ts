/** The permission code of operators (server/config/permission-tree.json). */
export const ADMIN_PERMISSION = 'ADMIN'
/** The OpenAPI tag of the operator API. */
export const TAG = 'admin'
export const DISABLED_MESSAGE = '该账号已被停用，如有疑问请联系客服'
