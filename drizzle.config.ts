// drizzle-kit: generates SQL migrations from src/db/schema.ts (run `npm run db:generate`).
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema.ts",
  out: "./src/db/migrations",
});
