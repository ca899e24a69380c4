ALTER TABLE "chat_messages" ALTER COLUMN "content_tokens" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "chat_messages" ALTER COLUMN "prompt_tokens" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "chat_messages" ALTER COLUMN "completion_tokens" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD COLUMN "held" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD COLUMN "node_id" text;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_held_check" CHECK ("chat_messages"."held" >= 0);--> statement-breakpoint
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_held_streaming_check" CHECK ("chat_messages"."held" = 0 or "chat_messages"."status" = 'streaming');