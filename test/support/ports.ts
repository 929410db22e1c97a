import { randomInt } from 'node:crypto';
import { createServer, type Server } from 'node:net';

// Ports count up from a random start below the system's range for outgoing connections.
let nextPort = 10_000 + randomInt(20_000);
const MAX_TRIES = 1_000;

/** Listens on 127.0.0.1 on `port`; a port taken fails with EADDRINUSE. */
export async function listenOn(server: Server, port: number): Promise<void> {
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
}

/**
 * Listens on 127.0.0.1 on a port this process has not listened on before; one taken by another
 * process is skipped. The node keeps a service's profile by its Base URL, as it should for a real
 * service; a test service on a port an earlier one had (the system hands out freed ports again: in
 * 36 of 200 runs of 60 listens here) would be read with the earlier service's profile.
 */
export async function listenOnNewPort(server: Server): Promise<number> {
	for (let tries = 1; ; tries++) {
		const port = nextPort;
		nextPort = nextPort >= 32_000 ? 10_000 : nextPort + 1;
		try {
			await listenOn(server, port);
			return port;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || tries >= MAX_TRIES) throw error;
		}
	}
}

/**
 * A port below the system's range for outgoing connections, free now, for a server a test starts
 * more than once on the same port: a port from that range (`listen(0)`) can be taken in between
 * as the local port of any outgoing connection on the machine, as it was under load.
 */
export async function portToReuse(): Promise<number> {
	const server = createServer();
	const port = await listenOnNewPort(server);
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}
