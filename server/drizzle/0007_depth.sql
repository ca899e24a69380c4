CREATE TABLE "chat_shares" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "chat_shares_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" text NOT NULL,
	"topic_id" text NOT NULL,
	"title" text NOT NULL,
	"role_name" text,
	"role_avatar" text,
	"message_count" integer NOT NULL,
	"messages" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_attachments" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "chat_attachments_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" text NOT NULL,
	"message_id" text,
	"sent_at" timestamp with time zone,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"key" text NOT NULL,
	"thumb_key" text,
	"width" integer,
	"height" integer,
	"text" text,
	"text_tokens" integer,
	"pages" integer,
	"clipped" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "chat_attachments_kind_check" CHECK ("chat_attachments"."kind" in ('image', 'document')),
	CONSTRAINT "chat_attachments_size_check" CHECK ("chat_attachments"."size" >= 0),
	CONSTRAINT "chat_attachments_clipped_check" CHECK ("chat_attachments"."clipped" in (0, 1))
);
--> statement-breakpoint
CREATE TABLE "chat_prompts" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "chat_prompts_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" text NOT NULL,
	"title" text NOT NULL,
	"content" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gallery_likes" (
	"task_id" text NOT NULL,
	"account_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "gallery_likes_task_id_account_id_pk" PRIMARY KEY("task_id","account_id")
);
--> statement-breakpoint
ALTER TABLE "chat_messages" ADD COLUMN "prev_id" text;--> statement-breakpoint
ALTER TABLE "chat_topics" ADD COLUMN "title_source" text DEFAULT 'user' NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_topics" ADD COLUMN "titled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "chat_topics" ADD COLUMN "leaf_id" text;--> statement-breakpoint
ALTER TABLE "chat_shares" ADD CONSTRAINT "chat_shares_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_shares" ADD CONSTRAINT "chat_shares_topic_id_chat_topics_id_fk" FOREIGN KEY ("topic_id") REFERENCES "chat_topics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_attachments" ADD CONSTRAINT "chat_attachments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_attachments" ADD CONSTRAINT "chat_attachments_message_id_chat_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "chat_messages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_prompts" ADD CONSTRAINT "chat_prompts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gallery_likes" ADD CONSTRAINT "gallery_likes_task_id_painting_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "painting_tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gallery_likes" ADD CONSTRAINT "gallery_likes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_shares_account_idx" ON "chat_shares" USING btree ("account_id","seq");--> statement-breakpoint
CREATE INDEX "chat_shares_topic_idx" ON "chat_shares" USING btree ("topic_id");--> statement-breakpoint
CREATE INDEX "chat_attachments_message_idx" ON "chat_attachments" USING btree ("message_id","seq");--> statement-breakpoint
CREATE INDEX "chat_attachments_account_idx" ON "chat_attachments" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "chat_attachments_key_idx" ON "chat_attachments" USING btree ("key");--> statement-breakpoint
CREATE INDEX "chat_attachments_orphan_idx" ON "chat_attachments" USING btree ("created_at") WHERE "chat_attachments"."message_id" is null;--> statement-breakpoint
CREATE INDEX "chat_prompts_account_idx" ON "chat_prompts" USING btree ("account_id","seq");--> statement-breakpoint
CREATE INDEX "gallery_likes_time_idx" ON "gallery_likes" USING btree ("created_at","task_id");--> statement-breakpoint
CREATE INDEX "chat_messages_account_idx" ON "chat_messages" USING btree ("account_id","seq");--> statement-breakpoint
ALTER TABLE "chat_topics" ADD CONSTRAINT "chat_topics_title_source_check" CHECK ("chat_topics"."title_source" in ('auto', 'user'));