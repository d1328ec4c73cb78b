// Type-aware linting: the unsafe-* rules keep `any` from leaking across module boundaries.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  // clients/typescript/schema.ts is generated (npm run client:generate) and checked by a test.
  {
    ignores: [
      "dist/",
      ".data/",
      ".aws-sam/",
      "node_modules/",
      "coverage/",
      ".bench-tmp/",
      "reports/",
      ".stryker-tmp/",
      // Your own try-outs (clients/typescript/README.md): outside the project's checks.
      "scratch/",
      "clients/typescript/schema.ts",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/explicit-module-boundary-types": "error",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
    },
  },
  {
    files: ["**/*.js"],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
