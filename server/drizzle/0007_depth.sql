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
CREATE TABLE "image_album_items" (
	"file_id" text NOT NULL,
	"album_id" text NOT NULL,
	CONSTRAINT "image_album_items_file_id_pk" PRIMARY KEY("file_id")
);
--> statement-breakpoint
CREATE TABLE "image_albums" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "moderation_words" (
	"word" text PRIMARY KEY NOT NULL,
	"verdict" text NOT NULL,
	"pinyin" boolean DEFAULT false NOT NULL,
	"source" text NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "moderation_words_verdict_check" CHECK ("moderation_words"."verdict" in ('review', 'block')),
	CONSTRAINT "moderation_words_source_check" CHECK ("moderation_words"."source" in ('file', 'console'))
);
--> statement-breakpoint
CREATE TABLE "partner_identities" (
	"partner_id" text NOT NULL,
	"sub" text NOT NULL,
	"account_id" text NOT NULL,
	"phone" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "partner_identities_partner_id_sub_pk" PRIMARY KEY("partner_id","sub")
);
--> statement-breakpoint
CREATE TABLE "model_prices" (
	"model_id" text PRIMARY KEY NOT NULL,
	"input" double precision NOT NULL,
	"output" double precision NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "upstream_channels" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"kind" text DEFAULT 'openai' NOT NULL,
	"base_url" text NOT NULL,
	"keys" jsonb NOT NULL,
	"key_hints" jsonb NOT NULL,
	"models" jsonb NOT NULL,
	"priority" integer DEFAULT 0 NOT NULL,
	"weight" integer DEFAULT 1 NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "announcements" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "announcements_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"title" text NOT NULL,
	"body" text NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"embeds" boolean DEFAULT false NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"withdrawn_at" timestamp with time zone,
	CONSTRAINT "announcements_window_check" CHECK ("announcements"."ends_at" > "announcements"."starts_at")
);
--> statement-breakpoint
CREATE TABLE "blocked_files" (
	"key" text PRIMARY KEY NOT NULL,
	"takedown_id" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "content_reports" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "content_reports_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"kind" text NOT NULL,
	"item_id" text NOT NULL,
	"reporter_id" text NOT NULL,
	"owner_id" text,
	"reason" text NOT NULL,
	"excerpt" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"handled_by" text,
	"handled_at" timestamp with time zone,
	"note" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "content_reports_kind_check" CHECK ("content_reports"."kind" in ('painting', 'song', 'image', 'reply')),
	CONSTRAINT "content_reports_status_check" CHECK ("content_reports"."status" in ('open', 'confirmed', 'dismissed'))
);
--> statement-breakpoint
CREATE TABLE "content_takedowns" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "content_takedowns_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"kind" text NOT NULL,
	"item_id" text NOT NULL,
	"account_id" text NOT NULL,
	"reason" text NOT NULL,
	"keys" jsonb NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"restored_by" text,
	"restored_at" timestamp with time zone,
	CONSTRAINT "content_takedowns_kind_check" CHECK ("content_takedowns"."kind" in ('painting', 'song', 'image'))
);
--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "partner_id" text;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD COLUMN "prev_id" text;--> statement-breakpoint
ALTER TABLE "chat_topics" ADD COLUMN "title_source" text DEFAULT 'user' NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_topics" ADD COLUMN "titled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "chat_topics" ADD COLUMN "leaf_id" text;--> statement-breakpoint
ALTER TABLE "music_songs" ADD COLUMN "share_token" text;--> statement-breakpoint
ALTER TABLE "chat_shares" ADD CONSTRAINT "chat_shares_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_shares" ADD CONSTRAINT "chat_shares_topic_id_chat_topics_id_fk" FOREIGN KEY ("topic_id") REFERENCES "chat_topics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_attachments" ADD CONSTRAINT "chat_attachments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_attachments" ADD CONSTRAINT "chat_attachments_message_id_chat_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "chat_messages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_prompts" ADD CONSTRAINT "chat_prompts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gallery_likes" ADD CONSTRAINT "gallery_likes_task_id_painting_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "painting_tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gallery_likes" ADD CONSTRAINT "gallery_likes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_album_items" ADD CONSTRAINT "image_album_items_file_id_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "files"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_album_items" ADD CONSTRAINT "image_album_items_album_id_image_albums_id_fk" FOREIGN KEY ("album_id") REFERENCES "image_albums"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_albums" ADD CONSTRAINT "image_albums_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_identities" ADD CONSTRAINT "partner_identities_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "blocked_files" ADD CONSTRAINT "blocked_files_takedown_id_content_takedowns_id_fk" FOREIGN KEY ("takedown_id") REFERENCES "content_takedowns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "content_reports" ADD CONSTRAINT "content_reports_reporter_id_accounts_id_fk" FOREIGN KEY ("reporter_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "content_takedowns" ADD CONSTRAINT "content_takedowns_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_shares_account_idx" ON "chat_shares" USING btree ("account_id","seq");--> statement-breakpoint
CREATE INDEX "chat_shares_topic_idx" ON "chat_shares" USING btree ("topic_id");--> statement-breakpoint
CREATE INDEX "chat_attachments_message_idx" ON "chat_attachments" USING btree ("message_id","seq");--> statement-breakpoint
CREATE INDEX "chat_attachments_account_idx" ON "chat_attachments" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "chat_attachments_key_idx" ON "chat_attachments" USING btree ("key");--> statement-breakpoint
CREATE INDEX "chat_attachments_orphan_idx" ON "chat_attachments" USING btree ("created_at") WHERE "chat_attachments"."message_id" is null;--> statement-breakpoint
CREATE INDEX "chat_prompts_account_idx" ON "chat_prompts" USING btree ("account_id","seq");--> statement-breakpoint
CREATE INDEX "gallery_likes_time_idx" ON "gallery_likes" USING btree ("created_at","task_id");--> statement-breakpoint
CREATE INDEX "image_album_items_album_idx" ON "image_album_items" USING btree ("album_id");--> statement-breakpoint
CREATE INDEX "image_albums_account_idx" ON "image_albums" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "partner_identities_account_idx" ON "partner_identities" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "announcements_window_idx" ON "announcements" USING btree ("starts_at","ends_at");--> statement-breakpoint
CREATE UNIQUE INDEX "content_reports_open_unique" ON "content_reports" USING btree ("reporter_id","kind","item_id") WHERE "content_reports"."status" = 'open';--> statement-breakpoint
CREATE INDEX "content_reports_status_idx" ON "content_reports" USING btree ("status","id");--> statement-breakpoint
CREATE INDEX "content_reports_reporter_idx" ON "content_reports" USING btree ("reporter_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "content_takedowns_active_unique" ON "content_takedowns" USING btree ("kind","item_id") WHERE "content_takedowns"."restored_at" is null;--> statement-breakpoint
CREATE INDEX "content_takedowns_account_idx" ON "content_takedowns" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "chat_messages_account_idx" ON "chat_messages" USING btree ("account_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "music_songs_share_token_unique" ON "music_songs" USING btree ("share_token");--> statement-breakpoint
ALTER TABLE "chat_topics" ADD CONSTRAINT "chat_topics_title_source_check" CHECK ("chat_topics"."title_source" in ('auto', 'user'));