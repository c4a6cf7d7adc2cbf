-- UNLOGGED: rate-limit counts are written on every request and worth nothing after a crash (the table is emptied
-- then), so they skip the write-ahead log.
CREATE UNLOGGED TABLE "rate_windows" (
	"id" text PRIMARY KEY NOT NULL,
	"window_start" bigint NOT NULL,
	"count" integer NOT NULL
);
