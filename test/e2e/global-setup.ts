import { ensureN8nInstalled, N8N_PINS, pinnedN8n } from '../../scripts/n8n-instance';
import { ensureDebianPackages } from './debian';

/** Installs every pinned n8n once, side by side, and the Debian packages, before the test files that use them run. */
export default async function globalSetup(): Promise<void> {
	ensureDebianPackages();
	const missing = N8N_PINS.filter((name) => !pinnedN8n(name).installed);
	if (missing.length > 0) {
		const versions = new Intl.ListFormat('en').format(
			missing.map((name) => `n8n ${pinnedN8n(name).version}`),
		);
		console.log(
			`\nInstalling ${versions} for the end-to-end tests (once per pin, about 5 minutes)...`,
		);
	}
	await Promise.all(missing.map(async (name) => await ensureN8nInstalled(name)));
}
