ALTER TABLE "painting_tasks" ADD COLUMN "channel_id" integer;--> statement-breakpoint
ALTER TABLE "music_tasks" ADD COLUMN "channel_id" integer;