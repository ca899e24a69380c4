CREATE TABLE "moderation_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "moderation_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"kind" text NOT NULL,
	"source" text NOT NULL,
	"account_id" text,
	"content_hash" text NOT NULL,
	"excerpt" text NOT NULL,
	"verdict" text NOT NULL,
	"provider" text,
	"rule" text,
	"failure" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "moderation_log_verdict_check" CHECK ("moderation_log"."verdict" in ('pass', 'review', 'block'))
);
--> statement-breakpoint
CREATE TABLE "admin_audit" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "admin_audit_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"actor_id" text NOT NULL,
	"actor_phone" text NOT NULL,
	"action" text NOT NULL,
	"target" text NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"reason" text,
	"request_id" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "card_batch_cards" (
	"card_id" text PRIMARY KEY NOT NULL,
	"batch_id" text NOT NULL,
	"voided_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "card_batches" (
	"id" text PRIMARY KEY NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"grants" jsonb NOT NULL,
	"count" integer NOT NULL,
	"expires_at" timestamp with time zone,
	"created_by" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "disabled_accounts" (
	"account_id" text PRIMARY KEY NOT NULL,
	"reason" text NOT NULL,
	"disabled_by" text NOT NULL,
	"disabled_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "moderation_log" ADD CONSTRAINT "moderation_log_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_batch_cards" ADD CONSTRAINT "card_batch_cards_batch_id_card_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "card_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_batches" ADD CONSTRAINT "card_batches_created_by_accounts_id_fk" FOREIGN KEY ("created_by") REFERENCES "accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "disabled_accounts" ADD CONSTRAINT "disabled_accounts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "moderation_log_created_idx" ON "moderation_log" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "moderation_log_account_idx" ON "moderation_log" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "admin_audit_target_idx" ON "admin_audit" USING btree ("target","id");--> statement-breakpoint
CREATE INDEX "admin_audit_created_idx" ON "admin_audit" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "card_batch_cards_batch_idx" ON "card_batch_cards" USING btree ("batch_id");