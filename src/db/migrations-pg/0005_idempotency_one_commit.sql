-- Keys are written only with their request's effect now: a row still in progress never committed anything.
DELETE FROM "idempotency_keys" WHERE "status" <> 'done';--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP COLUMN "status";--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP COLUMN "owner";--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP COLUMN "locked_until";