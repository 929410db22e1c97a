import dns from 'node:dns';
import net from 'node:net';

/**
 * Keeps a test file's connections on this machine: while installed, every TCP connection the
 * process opens (n8n's request helper, fetch, anything) is checked before it connects. An IP
 * address must be a loopback one; a name is never looked up in DNS: `localhost` and `*.localhost`
 * resolve to 127.0.0.1 here, and any other name fails as not found. A connection refused this way
 * is recorded, so a test can show that the node never tried one.
 *
 * Tests of media addresses need it: they name private and metadata addresses on purpose, and the
 * node under test, if its own checks broke, would otherwise connect to them.
 */

type LookupCallback = (
	error: NodeJS.ErrnoException | null,
	address: string | dns.LookupAddress[],
	family?: number,
) => void;

function isLoopbackAddress(address: string): boolean {
	if (net.isIPv4(address)) return address.startsWith('127.');
	const lower = address.toLowerCase();
	return (
		lower === '::1' ||
		/^::ffff:127\.\d+\.\d+\.\d+$/.test(lower) ||
		/^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(lower)
	);
}

function isLoopbackName(host: string): boolean {
	const name = host.toLowerCase().replace(/\.$/, '');
	return name === 'localhost' || name.endsWith('.localhost');
}

/** Resolves loopback names without DNS, and nothing else. */
function guardedLookup(blocked: string[]) {
	return (
		hostname: string,
		options: dns.LookupOptions | number | LookupCallback,
		callback?: LookupCallback,
	): void => {
		const done = (typeof options === 'function' ? options : callback) as LookupCallback;
		const all = typeof options === 'object' && options.all === true;
		if (!isLoopbackName(hostname)) {
			blocked.push(hostname);
			const error: NodeJS.ErrnoException = Object.assign(
				new Error(`loopback guard: no lookup of ${hostname} in tests`),
				{ code: 'ENOTFOUND' },
			);
			process.nextTick(() => done(error, all ? [] : ''));
			return;
		}
		process.nextTick(() =>
			all ? done(null, [{ address: '127.0.0.1', family: 4 }]) : done(null, '127.0.0.1', 4),
		);
	};
}

interface LoopbackGuard {
	/** Hosts the process tried to reach that are not loopback, in order. */
	readonly blocked: string[];
}

/** Installs the guard for the test file (beforeAll) and removes it afterwards (afterAll). */
export function useLoopbackGuard(): LoopbackGuard {
	const blocked: string[] = [];
	const original = net.Socket.prototype.connect;
	beforeAll(() => {
		net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
			// Node passes either (options, listener) or its own normalized [options, listener] array.
			const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
			if (
				first !== null &&
				typeof first === 'object' &&
				!('path' in first && (first as { path?: string }).path)
			) {
				const options = first as net.TcpNetConnectOpts;
				const host = options.host ?? 'localhost';
				if (net.isIP(host) !== 0) {
					if (!isLoopbackAddress(host)) {
						blocked.push(host);
						process.nextTick(() =>
							this.destroy(
								Object.assign(new Error(`loopback guard: no connection to ${host} in tests`), {
									code: 'ECONNREFUSED',
								}),
							),
						);
						return this;
					}
				} else {
					options.lookup = guardedLookup(blocked) as net.LookupFunction;
				}
			}
			return (original as (...rest: unknown[]) => net.Socket).apply(this, args);
		} as typeof original;
	});
	afterAll(() => {
		net.Socket.prototype.connect = original;
	});
	return { blocked };
}
