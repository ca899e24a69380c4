/** The user-facing texts of the spec (section 8), in one place for widgets and tests. */
export const MSG_SYSTEM_ERROR = '系统异常，请稍后重试'
export const MSG_SMS_SENT = '短信验证码已发送'
export const MSG_LOGIN_OK = '登录成功！'
export const MSG_MODIFY_OK = '修改成功！'
export const MSG_COPIED = '已复制到剪切板！'
export const MSG_LOGGED_OUT = '已退出登录，期待您再次回来'
export const MSG_OPERATION_OK = '操作成功'
export const MSG_CODE_REQUIRED = '验证码不能为空'
