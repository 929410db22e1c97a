/** @type {import('jest').Config} */
const project = {
	testEnvironment: 'node',
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
	},
};

/** @type {import('jest').Config} */
module.exports = {
	testTimeout: 30000,
	maxWorkers: 2,
	reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
	projects: [
		{
			...project,
			displayName: 'unit',
			// The node in n8n's engine against the fake service: no n8n install needed.
			testMatch: ['<rootDir>/test/**/*.test.ts'],
			testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
		},
		{
			...project,
			displayName: 'e2e',
			testMatch: ['<rootDir>/test/e2e/**/*.e2e.test.ts'],
			// Installs every pinned n8n, side by side, before the files that use them run.
			globalSetup: '<rootDir>/test/e2e/global-setup.ts',
		},
	],
};
