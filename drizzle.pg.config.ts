// drizzle-kit: generates the PostgreSQL migrations from src/db/schema.pg.ts (run `npm run db:generate`).
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema.pg.ts",
  out: "./src/db/migrations-pg",
});
