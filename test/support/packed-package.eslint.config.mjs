// The community-package lint rules, run by test/package.test.ts on the package as npm packs it:
// n8n's verification scans what is published (package.json and the built JavaScript), not the
// TypeScript sources that `npm run lint` checks.
import communityNodes from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

const languageOptions = { parser: tseslint.parser, parserOptions: { extraFileExtensions: ['.json'] } };

export default [
	{
		files: ['package.json'],
		languageOptions,
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: n8nNodesBase.configs.community.rules,
	},
	{
		files: ['package.json', 'dist/**/*.js'],
		languageOptions,
		...communityNodes.configs.recommended,
	},
];
