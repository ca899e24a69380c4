import { en as chrome } from '../../ui/locale-en'

/** English of the chat's chrome (i18n.ts), loaded only for `locale="en"`. */
const chat: Record<string, string> = {
  '打开灵犀 AI 对话': 'Open Lingxi AI chat',
  关闭提示: 'Dismiss',
  条新回复: 'new replies',
  '灵犀 AI': 'Lingxi AI',
  关闭对话: 'Close chat',
  加载中: 'Loading',
  登录后开始对话: 'Sign in to start chatting',
  '多话题、角色扮演，回答实时生成。': 'Topics, roles and answers written as you watch.',
  登录: 'Sign in',
  新对话: 'New chat',
  话题列表: 'Topics',
  新建对话: 'New chat',
  对话设置: 'Chat settings',
  清空对话: 'Clear chat',
  添加附件: 'Attach files',
  输入消息: 'Message',
  '输入消息，Enter 发送，Shift+Enter 换行': 'Message (Enter to send)',
  停止生成: 'Stop',
  发送: 'Send',
  去充值: 'Top up',
  '，超出字数上限': ' — too long',
  '你好，我是灵犀': 'Hi, I am Lingxi',
  '有什么可以帮你？试试这些：': 'How can I help? Try one of these:',
  对话消息: 'Messages',
  回到底部: 'Scroll to bottom'
}

/** The chat's, the login dialog's and the toasts' English: what `locale="en"` loads, in one chunk. */
export const en: Record<string, string> = { ...chrome, ...chat }
