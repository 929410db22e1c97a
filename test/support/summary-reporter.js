// Jest's own summary ("Tests: 3 passed, 3 total") is not the plain "N passed, N failed" line
// that CI reads, so print that line too, from the same aggregated results.
class SummaryReporter {
	onRunComplete(_contexts, results) {
		const skipped = results.numPendingTests + results.numTodoTests;
		const suffix = skipped > 0 ? `, ${skipped} skipped` : '';
		process.stdout.write(
			`\nTests: ${results.numPassedTests} passed, ${results.numFailedTests} failed${suffix}\n`,
		);
	}
}
module.exports = SummaryReporter;
