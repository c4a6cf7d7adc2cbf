-- Full-text index over retrieval chunks (the PostgreSQL counterpart of SQLite's chunks_fts): a generated tsvector
-- column, kept out of schema.pg.ts so the table objects never select it, and its GIN index.
ALTER TABLE "chunks" ADD COLUMN "tsv" tsvector GENERATED ALWAYS AS (to_tsvector('english', "text")) STORED;
--> statement-breakpoint
CREATE INDEX "chunks_tsv" ON "chunks" USING gin ("tsv");
