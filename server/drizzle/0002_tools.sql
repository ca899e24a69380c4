CREATE TABLE "files" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "files_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" text NOT NULL,
	"key" text NOT NULL,
	"thumb_key" text,
	"name" text DEFAULT '' NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"width" integer,
	"height" integer,
	"source" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "files_source_check" CHECK ("files"."source" in ('upload', 'avatar', 'painting', 'music', 'cover')),
	CONSTRAINT "files_size_check" CHECK ("files"."size" >= 0)
);
--> statement-breakpoint
CREATE TABLE "pending_uploads" (
	"key" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"purpose" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "pending_uploads_purpose_check" CHECK ("pending_uploads"."purpose" in ('image', 'avatar', 'painting'))
);
--> statement-breakpoint
CREATE TABLE "painting_tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "painting_tasks_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" text NOT NULL,
	"kind" text NOT NULL,
	"action" text NOT NULL,
	"status" text NOT NULL,
	"rank" smallint DEFAULT 0 NOT NULL,
	"progress" integer DEFAULT 0 NOT NULL,
	"prompt" text DEFAULT '' NOT NULL,
	"prompt_en" text DEFAULT '' NOT NULL,
	"parent_id" text,
	"index" smallint,
	"provider" text NOT NULL,
	"upstream_id" text,
	"upstream" jsonb,
	"image_key" text,
	"thumb_key" text,
	"width" integer,
	"height" integer,
	"prompts" jsonb,
	"fail_reason" text,
	"demo" boolean DEFAULT false NOT NULL,
	"params" jsonb,
	"charged" integer DEFAULT 0 NOT NULL,
	"refunded" boolean DEFAULT false NOT NULL,
	"published" boolean DEFAULT false NOT NULL,
	"publish_time" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "painting_tasks_kind_check" CHECK ("painting_tasks"."kind" in ('mj', 'sd')),
	CONSTRAINT "painting_tasks_status_check" CHECK ("painting_tasks"."status" in ('NOT_START', 'SUBMITTED', 'IN_PROGRESS', 'SUCCESS', 'FAILURE', 'INTERRPUT', 'TIMEOUT')),
	CONSTRAINT "painting_tasks_progress_check" CHECK ("painting_tasks"."progress" between 0 and 100),
	CONSTRAINT "painting_tasks_charged_check" CHECK ("painting_tasks"."charged" >= 0)
);
--> statement-breakpoint
CREATE TABLE "recharge_cards" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "recharge_cards_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"code_hash" text NOT NULL,
	"code_mask" text NOT NULL,
	"tokens" bigint DEFAULT 0 NOT NULL,
	"mj_count" integer DEFAULT 0 NOT NULL,
	"suno_count" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone,
	"redeemed_at" timestamp with time zone,
	"redeemed_by" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "recharge_cards_amounts_check" CHECK ("recharge_cards"."tokens" >= 0 and "recharge_cards"."mj_count" >= 0 and "recharge_cards"."suno_count" >= 0)
);
--> statement-breakpoint
CREATE TABLE "recharge_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "recharge_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" text NOT NULL,
	"card_id" text NOT NULL,
	"code_mask" text NOT NULL,
	"tokens" bigint NOT NULL,
	"mj_count" integer NOT NULL,
	"suno_count" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "hot_cache" (
	"source_id" text PRIMARY KEY NOT NULL,
	"items" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"fetched_at" timestamp with time zone,
	"attempted_at" timestamp with time zone,
	"last_error" text
);
--> statement-breakpoint
CREATE TABLE "music_songs" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "music_songs_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" text NOT NULL,
	"task_id" text NOT NULL,
	"clip_id" text NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"tags" text DEFAULT '' NOT NULL,
	"lyric" text DEFAULT '' NOT NULL,
	"prompt" text DEFAULT '' NOT NULL,
	"instrumental" boolean DEFAULT false NOT NULL,
	"status" text NOT NULL,
	"audio_url" text,
	"image_url" text,
	"audio_key" text,
	"image_key" text,
	"duration" double precision,
	"error_message" text,
	"demo" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "music_songs_status_check" CHECK ("music_songs"."status" in ('submitted', 'queued', 'streaming', 'complete', 'error'))
);
--> statement-breakpoint
CREATE TABLE "music_tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"provider" text NOT NULL,
	"mode" text NOT NULL,
	"charged" integer DEFAULT 0 NOT NULL,
	"refunded" smallint DEFAULT 0 NOT NULL,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "music_tasks_refunded_check" CHECK ("music_tasks"."refunded" in (0, 1))
);
--> statement-breakpoint
CREATE TABLE "order_activities" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "order_activities_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"title" text NOT NULL,
	"brief" text NOT NULL,
	"requirements" text DEFAULT '' NOT NULL,
	"platform" text NOT NULL,
	"quality" boolean DEFAULT false NOT NULL,
	"reward_fen" integer NOT NULL,
	"budget_fen" bigint NOT NULL,
	"reserved_fen" bigint DEFAULT 0 NOT NULL,
	"spent_fen" bigint DEFAULT 0 NOT NULL,
	"cover" text,
	"start_time" timestamp with time zone NOT NULL,
	"end_time" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "order_activities_platform_check" CHECK ("order_activities"."platform" in ('xiaohongshu', 'douyin', 'wechat_mp', 'weibo', 'bilibili', 'other')),
	CONSTRAINT "order_activities_reward_check" CHECK ("order_activities"."reward_fen" > 0),
	CONSTRAINT "order_activities_budget_check" CHECK ("order_activities"."reserved_fen" >= 0 and "order_activities"."spent_fen" >= 0 and "order_activities"."spent_fen" <= "order_activities"."reserved_fen" and "order_activities"."reserved_fen" <= "order_activities"."budget_fen"),
	CONSTRAINT "order_activities_time_check" CHECK ("order_activities"."end_time" > "order_activities"."start_time")
);
--> statement-breakpoint
CREATE TABLE "order_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"activity_id" text NOT NULL,
	"num" integer NOT NULL,
	"name" text NOT NULL,
	"start_time" timestamp with time zone NOT NULL,
	"end_time" timestamp with time zone NOT NULL,
	"places" integer NOT NULL,
	"places_left" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "order_sessions_places_check" CHECK ("order_sessions"."places_left" >= 0 and "order_sessions"."places_left" <= "order_sessions"."places"),
	CONSTRAINT "order_sessions_time_check" CHECK ("order_sessions"."end_time" > "order_sessions"."start_time")
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "orders_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" text NOT NULL,
	"activity_id" text NOT NULL,
	"session_id" text NOT NULL,
	"status" text NOT NULL,
	"draft" text DEFAULT '' NOT NULL,
	"link" text,
	"screenshots" text[] DEFAULT '{}'::text[] NOT NULL,
	"reject_reason" text,
	"reward_fen" integer NOT NULL,
	"take_time" timestamp with time zone NOT NULL,
	"submit_time" timestamp with time zone,
	"review_time" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "orders_status_check" CHECK ("orders"."status" in ('taken', 'submitted', 'approved', 'rejected', 'cancelled', 'expired'))
);
--> statement-breakpoint
CREATE TABLE "red_packets" (
	"id" text PRIMARY KEY NOT NULL,
	"order_id" text NOT NULL,
	"account_id" text NOT NULL,
	"mch_billno" text NOT NULL,
	"amount_fen" integer NOT NULL,
	"openid" text NOT NULL,
	"demo" boolean DEFAULT false NOT NULL,
	"state" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"claim_until" timestamp with time zone,
	"retry_after" timestamp with time zone,
	"err_code" text,
	"err_message" text,
	"send_listid" text,
	"raw_responses" text[] DEFAULT '{}'::text[] NOT NULL,
	"send_time" timestamp with time zone,
	"receive_time" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "red_packets_state_check" CHECK ("red_packets"."state" in ('PENDING', 'SENDING', 'SENT', 'FAILED', 'RECEIVED', 'RFUND_ING', 'REFUND')),
	CONSTRAINT "red_packets_amount_check" CHECK ("red_packets"."amount_fen" > 0)
);
--> statement-breakpoint
CREATE TABLE "wechat_identities" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "wechat_identities_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"app_id" text NOT NULL,
	"openid" text NOT NULL,
	"unionid" text,
	"account_id" text NOT NULL,
	"nick_name" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wechat_login_states" (
	"id" text PRIMARY KEY NOT NULL,
	"state_hash" text,
	"ticket_hash" text,
	"redirect" text NOT NULL,
	"popup" boolean DEFAULT false NOT NULL,
	"bind_account_id" text,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pending_uploads" ADD CONSTRAINT "pending_uploads_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "painting_tasks" ADD CONSTRAINT "painting_tasks_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recharge_cards" ADD CONSTRAINT "recharge_cards_redeemed_by_accounts_id_fk" FOREIGN KEY ("redeemed_by") REFERENCES "accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recharge_log" ADD CONSTRAINT "recharge_log_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recharge_log" ADD CONSTRAINT "recharge_log_card_id_recharge_cards_id_fk" FOREIGN KEY ("card_id") REFERENCES "recharge_cards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "music_songs" ADD CONSTRAINT "music_songs_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "music_songs" ADD CONSTRAINT "music_songs_task_id_music_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "music_tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "music_tasks" ADD CONSTRAINT "music_tasks_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_sessions" ADD CONSTRAINT "order_sessions_activity_id_order_activities_id_fk" FOREIGN KEY ("activity_id") REFERENCES "order_activities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_activity_id_order_activities_id_fk" FOREIGN KEY ("activity_id") REFERENCES "order_activities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_session_id_order_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "order_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "red_packets" ADD CONSTRAINT "red_packets_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "red_packets" ADD CONSTRAINT "red_packets_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wechat_identities" ADD CONSTRAINT "wechat_identities_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wechat_login_states" ADD CONSTRAINT "wechat_login_states_bind_account_id_accounts_id_fk" FOREIGN KEY ("bind_account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "files_key_unique" ON "files" USING btree ("key");--> statement-breakpoint
CREATE INDEX "files_account_idx" ON "files" USING btree ("account_id","source","seq");--> statement-breakpoint
CREATE INDEX "pending_uploads_account_idx" ON "pending_uploads" USING btree ("account_id","expires_at");--> statement-breakpoint
CREATE INDEX "painting_tasks_account_idx" ON "painting_tasks" USING btree ("account_id","seq");--> statement-breakpoint
CREATE INDEX "painting_tasks_account_kind_idx" ON "painting_tasks" USING btree ("account_id","kind","seq");--> statement-breakpoint
CREATE INDEX "painting_tasks_gallery_idx" ON "painting_tasks" USING btree ("publish_time","seq") WHERE "painting_tasks"."published";--> statement-breakpoint
CREATE INDEX "painting_tasks_unfinished_idx" ON "painting_tasks" USING btree ("provider","updated_at") WHERE "painting_tasks"."rank" < 4;--> statement-breakpoint
CREATE INDEX "painting_tasks_upstream_idx" ON "painting_tasks" USING btree ("provider","upstream_id");--> statement-breakpoint
CREATE UNIQUE INDEX "recharge_cards_code_unique" ON "recharge_cards" USING btree ("code_hash");--> statement-breakpoint
CREATE INDEX "recharge_log_account_idx" ON "recharge_log" USING btree ("account_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "recharge_log_card_unique" ON "recharge_log" USING btree ("card_id");--> statement-breakpoint
CREATE INDEX "music_songs_account_idx" ON "music_songs" USING btree ("account_id","seq");--> statement-breakpoint
CREATE INDEX "music_songs_task_idx" ON "music_songs" USING btree ("task_id");--> statement-breakpoint
CREATE INDEX "music_tasks_account_idx" ON "music_tasks" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "music_tasks_open_idx" ON "music_tasks" USING btree ("created_at") WHERE "music_tasks"."finished_at" is null;--> statement-breakpoint
CREATE INDEX "order_activities_list_idx" ON "order_activities" USING btree ("quality","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "order_sessions_num_unique" ON "order_sessions" USING btree ("activity_id","num");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_account_session_unique" ON "orders" USING btree ("account_id","session_id");--> statement-breakpoint
CREATE INDEX "orders_account_idx" ON "orders" USING btree ("account_id","seq");--> statement-breakpoint
CREATE INDEX "orders_status_idx" ON "orders" USING btree ("status","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "red_packets_order_unique" ON "red_packets" USING btree ("order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "red_packets_billno_unique" ON "red_packets" USING btree ("mch_billno");--> statement-breakpoint
CREATE UNIQUE INDEX "wechat_identities_openid_unique" ON "wechat_identities" USING btree ("app_id","openid");--> statement-breakpoint
CREATE UNIQUE INDEX "wechat_identities_unionid_unique" ON "wechat_identities" USING btree ("unionid");--> statement-breakpoint
CREATE INDEX "wechat_identities_account_idx" ON "wechat_identities" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "wechat_login_states_state_unique" ON "wechat_login_states" USING btree ("state_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "wechat_login_states_ticket_unique" ON "wechat_login_states" USING btree ("ticket_hash");