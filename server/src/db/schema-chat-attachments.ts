// Files attached to chat messages (see schema.ts): images sent to vision models, documents whose
// text goes into the model's context. The bytes live in storage; the row is the only way to them.
import { sql } from 'drizzle-orm'
import { bigint, check, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { accounts } from './schema-accounts.js'
import { chatMessages } from './schema-chat.js'

export const ATTACHMENT_KINDS = ['image', 'document'] as const
export type AttachmentKind = (typeof ATTACHMENT_KINDS)[number]

export const chatAttachments = pgTable(
  'chat_attachments',
  {
    id: text('id').primaryKey(),
    /** Upload order; a message's attachments are listed in it. */
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /**
     * The user message it was sent with; null before it is sent. Set null when the message goes
     * (topic deleted or cleared, message deleted): `sentAt` then tells an orphan, whose bytes the
     * sweep removes, from an upload still waiting for its message.
     */
    messageId: text('message_id').references(() => chatMessages.id, { onDelete: 'set null' }),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
    kind: text('kind').$type<AttachmentKind>().notNull(),
    /** The name the user's file had: a label (Content-Disposition, chips), never a path. */
    name: text('name').notNull(),
    /** As sniffed from the bytes: image/png…, application/pdf, the DOCX type, text/plain. */
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    key: text('key').notNull(),
    /** Images: a small WebP for the history. */
    thumbKey: text('thumb_key'),
    width: integer('width'),
    height: integer('height'),
    /** Documents: the text extracted on the server (clipped to the limits), sent to the model. */
    text: text('text'),
    /** Tokens of `text` (gpt-tokenizer), counted once at upload. */
    textTokens: integer('text_tokens'),
    /** PDF pages read (the first ATTACHMENT_MAX_PAGES) and in the file. */
    pages: integer('pages'),
    /** The text was clipped (more pages or characters than the limits). */
    clipped: integer('clipped').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull()
  },
  (t) => [
    index('chat_attachments_message_idx').on(t.messageId, t.seq),
    index('chat_attachments_account_idx').on(t.accountId, t.createdAt),
    // An edited question's copy shares its files' keys: the sweep keeps bytes a row still names.
    index('chat_attachments_key_idx').on(t.key),
    index('chat_attachments_orphan_idx').on(t.createdAt).where(sql`${t.messageId} is null`),
    check('chat_attachments_kind_check', sql`${t.kind} in ('image', 'document')`),
    check('chat_attachments_size_check', sql`${t.size} >= 0`),
    check('chat_attachments_clipped_check', sql`${t.clipped} in (0, 1)`)
  ]
)

export type ChatAttachment = typeof chatAttachments.$inferSelect
