// One lint setup for every workspace (issue 2 §1): typescript-eslint's recommended rules.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'cdk.out/**', '.local/**', 'bench-results/**', 'web/e2e/screenshots/**', '**/*.js', '**/*.cjs', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      // Unused names prefixed with _ are deliberate (destructuring a field away).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', destructuredArrayIgnorePattern: '^_' }],
      // Handlers receive loosely typed framework payloads; `any` is allowed where it is explicit.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
