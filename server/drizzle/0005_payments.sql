CREATE TABLE "pay_orders" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "pay_orders_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"package_id" text NOT NULL,
	"package_name" text NOT NULL,
	"grants" jsonb NOT NULL,
	"amount_fen" integer NOT NULL,
	"provider" text NOT NULL,
	"scene" text NOT NULL,
	"status" text NOT NULL,
	"payment" jsonb,
	"provider_trade_no" text,
	"refunded_fen" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"paid_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"refunded_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "pay_orders_status_check" CHECK ("pay_orders"."status" in ('pending', 'paid', 'closed', 'refunded')),
	CONSTRAINT "pay_orders_amount_check" CHECK ("pay_orders"."amount_fen" > 0 and "pay_orders"."refunded_fen" >= 0 and "pay_orders"."refunded_fen" <= "pay_orders"."amount_fen"),
	CONSTRAINT "pay_orders_grants_check" CHECK (jsonb_typeof("pay_orders"."grants") = 'object' and not jsonb_path_exists("pay_orders"."grants", '$.* ? (@.type() != "number" || @ < 0 || @ != @.floor())'))
);
--> statement-breakpoint
CREATE TABLE "pay_packages" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "pay_packages_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"price_fen" integer NOT NULL,
	"grants" jsonb NOT NULL,
	"validity_days" integer,
	"badge" text,
	"sort" integer DEFAULT 0 NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "pay_packages_price_check" CHECK ("pay_packages"."price_fen" > 0),
	CONSTRAINT "pay_packages_validity_check" CHECK ("pay_packages"."validity_days" is null or "pay_packages"."validity_days" > 0),
	CONSTRAINT "pay_packages_grants_check" CHECK (jsonb_typeof("pay_packages"."grants") = 'object' and not jsonb_path_exists("pay_packages"."grants", '$.* ? (@.type() != "number" || @ < 0 || @ != @.floor())'))
);
--> statement-breakpoint
ALTER TABLE "pay_orders" ADD CONSTRAINT "pay_orders_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "pay_orders_idempotency_unique" ON "pay_orders" USING btree ("account_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "pay_orders_account_idx" ON "pay_orders" USING btree ("account_id","seq");--> statement-breakpoint
CREATE INDEX "pay_orders_pending_idx" ON "pay_orders" USING btree ("status","expires_at");--> statement-breakpoint
CREATE INDEX "pay_packages_list_idx" ON "pay_packages" USING btree ("enabled","sort","seq");