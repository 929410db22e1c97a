import { ensureN8nInstalled, pinnedN8n } from '../../scripts/n8n-instance';

/** Installs the pinned n8n once, before the test files that use it run side by side. */
export default function globalSetup(): void {
	if (!pinnedN8n().installed) console.log('\nInstalling the pinned n8n for the end-to-end tests (once, about 5 minutes)...');
	ensureN8nInstalled();
}
