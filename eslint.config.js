// ESLint (flat config): typescript-eslint's recommended rules on the TypeScript and the JavaScript (the CLI entry
// point, the dashboard's browser modules), with unused variables and imports as errors so that dead code cannot come
// back. `npm run lint`; `npm test` runs it first.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "proto/gen/", "artifacts/", "tmp/", ".bench-cache/", "coordinator/dashboard/uplot.esm.js"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", ignoreRestSiblings: true }],
    },
  },
  { files: ["coordinator/dashboard/**/*.js"], languageOptions: { globals: globals.browser } },
  { files: ["bin/**/*.js", "eslint.config.js"], languageOptions: { globals: globals.node } },
);
