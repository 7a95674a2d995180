import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const NO_ENUMS = {
  selector: 'TSEnumDeclaration',
  message: 'Use a union of string literals instead of an enum.',
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'coverage/**',
      'node_modules/**',
      'test/fixtures/**',
      '.gitlab-ci-local/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': ['error', NO_ENUMS],
      'max-lines': ['warn', { max: 400, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['**/*.cjs', '**/*.mjs'],
    languageOptions: { globals: globals.node, sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  { files: ['**/*.mjs'], languageOptions: { sourceType: 'module' } },
  {
    // zod's namespace taken whole (`import { z }`) keeps every part of zod in the
    // bundle; `import * as z` lets the bundler leave out what mr-agent never calls
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        NO_ENUMS,
        {
          selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']",
          message:
            "Write `import * as z from 'zod'`: the bundle then carries only the parts of zod in use.",
        },
      ],
    },
  },
  { files: ['src/config/options.ts'], rules: { 'max-lines': 'off' } },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/cli/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Pass env in from the CLI entry point.' },
      ],
    },
  },
);
