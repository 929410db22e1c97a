// Lint for what is not published: tests, scripts, benchmarks and these config files.
// eslint.config.mjs stays exactly n8n's default (what `n8n-node cloud-support` asks for) and lints
// the package itself (package.json, nodes/, credentials/); its community-package rules forbid what
// tests and scripts need (Node.js modules, timers, console), so this file covers the rest.
import tseslint from 'typescript-eslint';

export default [
	{
		ignores: [
			'dist/**',
			'node_modules/**',
			'coverage/**',
			'test-output/**',
			'nodes/**',
			'credentials/**',
			'**/*.js',
		],
	},
	{
		files: ['**/*.ts', '**/*.mjs'],
		languageOptions: {
			parser: tseslint.parser,
			parserOptions: { sourceType: 'module' },
		},
		plugins: { '@typescript-eslint': tseslint.plugin },
		linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'error' },
		rules: {
			...tseslint.configs.recommended.find(
				(config) => config.name === 'typescript-eslint/recommended',
			).rules,
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
		},
	},
];
