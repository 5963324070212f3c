// drizzle-kit settings: `pnpm db:generate` writes a new migration into ./drizzle from src/schema.ts.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/schema.ts',
  out: './drizzle',
});
