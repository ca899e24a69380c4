CREATE TABLE "chat_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "chat_messages_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" text NOT NULL,
	"topic_id" text NOT NULL,
	"role" text NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"thinking" text,
	"status" text NOT NULL,
	"request_id" text,
	"parent_id" text,
	"model" text,
	"error_code" integer,
	"error_message" text,
	"content_tokens" integer,
	"prompt_tokens" integer,
	"completion_tokens" integer,
	"cost" bigint,
	"charged" bigint,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "chat_messages_role_check" CHECK ("chat_messages"."role" in ('user', 'assistant', 'system')),
	CONSTRAINT "chat_messages_status_check" CHECK ("chat_messages"."status" in ('streaming', 'complete', 'error', 'interrput', 'timeout'))
);
--> statement-breakpoint
CREATE TABLE "chat_role_tags" (
	"role_id" text NOT NULL,
	"tag_id" text NOT NULL,
	CONSTRAINT "chat_role_tags_role_id_tag_id_pk" PRIMARY KEY("role_id","tag_id")
);
--> statement-breakpoint
CREATE TABLE "chat_roles" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "chat_roles_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" text,
	"name" text NOT NULL,
	"avatar" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"system_prompt" text NOT NULL,
	"welcome_message" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_tags" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"sort" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_topics" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "chat_topics_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"top_flag" smallint DEFAULT 0 NOT NULL,
	"role_id" text,
	"role_name" text,
	"role_avatar" text,
	"system_prompt" text,
	"model" text NOT NULL,
	"temperature" double precision NOT NULL,
	"context_enabled" smallint DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "chat_topics_top_flag_check" CHECK ("chat_topics"."top_flag" in (0, 1)),
	CONSTRAINT "chat_topics_context_check" CHECK ("chat_topics"."context_enabled" in (0, 1))
);
--> statement-breakpoint
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_topic_id_chat_topics_id_fk" FOREIGN KEY ("topic_id") REFERENCES "chat_topics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_role_tags" ADD CONSTRAINT "chat_role_tags_role_id_chat_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "chat_roles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_role_tags" ADD CONSTRAINT "chat_role_tags_tag_id_chat_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "chat_tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_roles" ADD CONSTRAINT "chat_roles_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_topics" ADD CONSTRAINT "chat_topics_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_topics" ADD CONSTRAINT "chat_topics_role_id_chat_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "chat_roles"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_messages_topic_idx" ON "chat_messages" USING btree ("topic_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "chat_messages_request_unique" ON "chat_messages" USING btree ("account_id","request_id");--> statement-breakpoint
CREATE INDEX "chat_messages_streaming_idx" ON "chat_messages" USING btree ("status") WHERE "chat_messages"."status" = 'streaming';--> statement-breakpoint
CREATE INDEX "chat_role_tags_tag_idx" ON "chat_role_tags" USING btree ("tag_id");--> statement-breakpoint
CREATE INDEX "chat_roles_account_idx" ON "chat_roles" USING btree ("account_id","seq");--> statement-breakpoint
CREATE INDEX "chat_topics_account_idx" ON "chat_topics" USING btree ("account_id","top_flag","updated_at");