// Lint rules: typescript-eslint's type-aware recommended set, zero warnings allowed in CI.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'out/', 'fixtures/', 'test-artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      'no-console': 'off',
    },
  },
  {
    // Layers: the warehouse (with its metrics layer and the leaf taxonomy) sits below the outputs that
    // read it; it never imports a report, diff, gate or command module (STYLE 16-17).
    files: ['src/warehouse/**/*.ts', 'src/metrics/**/*.ts', 'src/taxonomy/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/report/**', '**/diff/**', '**/pipeline/**', '**/cli/**'],
              message: 'The warehouse layer must not import outputs; move shared data to a leaf module.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
