import communityNodes from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

const typescriptParser = {
	parser: tseslint.parser,
	parserOptions: { sourceType: 'module', extraFileExtensions: ['.json'] },
};

export default [
	{ ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test-output/**', '**/*.js', '**/*.mjs'] },
	{
		files: ['**/*.ts'],
		languageOptions: typescriptParser,
		plugins: { '@typescript-eslint': tseslint.plugin },
		linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'error' },
		rules: {
			...tseslint.configs.recommended.find((config) => config.name === 'typescript-eslint/recommended')
				.rules,
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
		},
	},
	{
		files: ['package.json'],
		languageOptions: typescriptParser,
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: n8nNodesBase.configs.community.rules,
	},
	{
		files: ['credentials/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			// Written for n8n's own credentials, whose documentation links are camel-cased doc slugs;
			// a community credential must link a full URL, which the rules below demand.
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			// These two want the string 'main'; the community-nodes rules (and n8n's package scanner)
			// want NodeConnectionTypes.Main, which is what n8n itself now uses.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
		},
	},
	{
		files: ['package.json', 'credentials/**/*.ts', 'nodes/**/*.ts'],
		languageOptions: typescriptParser,
		...communityNodes.configs.recommended,
	},
];
