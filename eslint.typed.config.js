// The type-aware rule, kept out of `npm run lint` for its cost: `npm run lint:typed`.
// Each file is checked against its own tsconfig (the root one, widget/ or studio/).
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";
import base from "./eslint.config.js";

export default defineConfig(base, {
  files: ["**/*.{ts,tsx}"],
  languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  plugins: { "@typescript-eslint": tseslint.plugin },
  rules: { "@typescript-eslint/no-floating-promises": "error" },
});
