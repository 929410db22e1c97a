/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
	},
	testTimeout: 30000,
	globalSetup: '<rootDir>/test/e2e/global-setup.ts',
	maxWorkers: 2,
	reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
