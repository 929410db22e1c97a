import { randomInt } from 'node:crypto';
import type { Server } from 'node:net';

/**
 * Listens on 127.0.0.1 on a port this process has not listened on before. The node keeps a
 * service's profile by its Base URL, as it should for a real service; a test service on a port an
 * earlier one had (the system hands out freed ports again: in 18% of 60 listens here) would be
 * read with the earlier service's profile. Ports count up from a random start below the system's
 * range for outgoing connections; one taken by another process is skipped.
 */
let nextPort = 10_000 + randomInt(20_000);

export async function listenOnNewPort(server: Server): Promise<number> {
	for (;;) {
		const port = nextPort;
		nextPort = nextPort >= 32_000 ? 10_000 : nextPort + 1;
		try {
			await new Promise<void>((resolve, reject) => {
				server.once('error', reject);
				server.listen(port, '127.0.0.1', () => {
					server.off('error', reject);
					resolve();
				});
			});
			return port;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
		}
	}
}
