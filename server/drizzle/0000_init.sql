CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"en_code" text NOT NULL,
	"phone" text NOT NULL,
	"nick_name" text NOT NULL,
	"avatar_url" text DEFAULT '' NOT NULL,
	"state" smallint DEFAULT 1 NOT NULL,
	"tokens" bigint DEFAULT 0 NOT NULL,
	"mj_count" integer DEFAULT 0 NOT NULL,
	"suno_count" integer DEFAULT 0 NOT NULL,
	"permission_codes" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "accounts_state_check" CHECK ("accounts"."state" in (0, 1)),
	CONSTRAINT "accounts_tokens_check" CHECK ("accounts"."tokens" >= 0),
	CONSTRAINT "accounts_mj_count_check" CHECK ("accounts"."mj_count" >= 0),
	CONSTRAINT "accounts_suno_count_check" CHECK ("accounts"."suno_count" >= 0)
);
--> statement-breakpoint
CREATE TABLE "balance_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "balance_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" text NOT NULL,
	"kind" text NOT NULL,
	"amount" bigint NOT NULL,
	"balance" bigint NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "balance_log_kind_check" CHECK ("balance_log"."kind" in ('tokens', 'mj', 'suno'))
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sessions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"token_hash" text NOT NULL,
	"account_id" text NOT NULL,
	"platform" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoke_reason" text,
	CONSTRAINT "sessions_platform_check" CHECK ("sessions"."platform" in ('PC', 'H5'))
);
--> statement-breakpoint
CREATE TABLE "sms_codes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sms_codes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"en_code" text NOT NULL,
	"phone" text NOT NULL,
	"purpose" text NOT NULL,
	"code_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "sms_codes_purpose_check" CHECK ("sms_codes"."purpose" in ('LOGIN', 'MODIFY_PHONE'))
);
--> statement-breakpoint
ALTER TABLE "balance_log" ADD CONSTRAINT "balance_log_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "accounts_phone_unique" ON "accounts" USING btree ("en_code","phone");--> statement-breakpoint
CREATE INDEX "balance_log_account_idx" ON "balance_log" USING btree ("account_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "sessions_token_hash_unique" ON "sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "sessions_account_idx" ON "sessions" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "sms_codes_lookup_idx" ON "sms_codes" USING btree ("en_code","phone","purpose","id");