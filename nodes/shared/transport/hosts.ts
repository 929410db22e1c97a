/**
 * Which hosts a media address may name (docs/media.md): not n8n's own host, its network or a cloud
 * metadata endpoint, judged as the WHATWG URL parser (n8n's request helper's too) leaves the host
 * (`2130706433` is 127.0.0.1). Where a name resolves is unseen: community nodes may not import `dns`.
 */

// IPv4 ranges that are not public (IANA special-purpose registry), with what they are.
const IPV4_RANGES: Array<[string, number, string]> = [
	['0.0.0.0', 8, 'a "this network" address (0.0.0.0 reaches n8n\'s own host)'],
	['10.0.0.0', 8, 'a private address (RFC 1918)'],
	['100.64.0.0', 10, 'a shared address (carrier-grade NAT, RFC 6598)'],
	['127.0.0.0', 8, 'a loopback address'],
	['169.254.0.0', 16, 'a link-local address (where cloud metadata services answer)'],
	['172.16.0.0', 12, 'a private address (RFC 1918)'],
	['192.0.0.0', 24, 'an IETF protocol address'],
	['192.0.2.0', 24, 'a documentation address'],
	['192.88.99.0', 24, 'a 6to4 relay address'],
	['192.168.0.0', 16, 'a private address (RFC 1918)'],
	['198.18.0.0', 15, 'a benchmarking address'],
	['198.51.100.0', 24, 'a documentation address'],
	['203.0.113.0', 24, 'a documentation address'],
	['224.0.0.0', 4, 'a multicast address'],
	['240.0.0.0', 4, 'a reserved address'],
];

// Last labels of names that resolve only inside a network (RFC 6761, 6762, 8375, ICANN's .internal) or never.
const LOCAL_LABELS = new Set(
	'internal local localdomain arpa lan intranet corp home test invalid example onion'.split(' '),
);
// Cloud metadata services that answer at a public-looking name (Google Cloud, Tencent Cloud).
const METADATA_NAMES = ['metadata.goog', 'metadata.tencentyun.com'];

function ipv4Number(text: string): number | undefined {
	const parts = text.split('.');
	if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255))
		return undefined;
	return parts.reduce((value, part) => value * 256 + Number(part), 0);
}

function ipv4Reason(address: number): string | undefined {
	for (const [start, bits, reason] of IPV4_RANGES) {
		const first = ipv4Number(start) ?? 0;
		if (address >= first && address < first + 2 ** (32 - bits)) return reason;
	}
	return undefined;
}

/** The eight 16-bit groups of an IPv6 address as the URL parser writes it (no dotted IPv4 tail). */
function ipv6Groups(text: string): number[] | undefined {
	const halves = text.split('::');
	if (halves.length > 2) return undefined;
	const read = (part: string) =>
		part === ''
			? []
			: part
					.split(':')
					.map((group) => (/^[0-9a-f]{1,4}$/i.test(group) ? parseInt(group, 16) : NaN));
	const head = read(halves[0]);
	const rest = halves.length === 2 ? read(halves[1]) : [];
	const missing = 8 - head.length - rest.length;
	const complete = halves.length === 2 ? missing >= 0 : missing === 0;
	if (!complete || [...head, ...rest].some(Number.isNaN)) return undefined;
	return [...head, ...new Array<number>(missing).fill(0), ...rest];
}

function inPrefix(groups: number[], prefix: number[], bits: number): boolean {
	for (let bit = 0; bit < bits; bit += 16) {
		const width = Math.min(16, bits - bit);
		const shift = 16 - width;
		if (groups[bit / 16] >> shift !== (prefix[bit / 16] ?? 0) >> shift) return false;
	}
	return true;
}

function ipv6Reason(groups: number[]): string | undefined {
	const embedded = (high: number, low: number) => {
		const reason = ipv4Reason(high * 65536 + low);
		return reason === undefined ? undefined : `an IPv6 address that carries ${reason}`;
	};
	if (groups.every((group) => group === 0))
		return "the unspecified address (it reaches n8n's own host)";
	if (inPrefix(groups, [0, 0, 0, 0, 0, 0, 0, 1], 128)) return 'a loopback address';
	// IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) addresses reach the IPv4 address they carry.
	if (inPrefix(groups, [0, 0, 0, 0, 0, 0xffff], 96) || inPrefix(groups, [0x64, 0xff9b], 96))
		return embedded(groups[6], groups[7]);
	// 6to4 (2002:aabb:ccdd::) routes to the IPv4 address in its second and third groups.
	if (inPrefix(groups, [0x2002], 16)) return embedded(groups[1], groups[2]);
	if (inPrefix(groups, [0xfc00], 7)) return 'a unique-local address (the IPv6 private range)';
	if (inPrefix(groups, [0xfe80], 10) || inPrefix(groups, [0xfec0], 10))
		return 'a link-local address';
	if (inPrefix(groups, [0xff00], 8)) return 'a multicast address';
	if (inPrefix(groups, [0x2001, 0xdb8], 32) || inPrefix(groups, [0x3fff], 20))
		return 'a documentation address';
	// Teredo, benchmarking and other IETF protocol assignments.
	if (inPrefix(groups, [0x2001], 23)) return 'an IETF protocol address';
	// Everything public is global unicast (2000::/3).
	if (!inPrefix(groups, [0x2000], 3)) return 'a reserved address';
	return undefined;
}

/** Why a URL's `hostname` is not public, or undefined when nothing written in it says so. */
export function nonPublicReason(hostname: string): string | undefined {
	const host = hostname.toLowerCase().replace(/\.$/, '');
	if (host.startsWith('[') && host.endsWith(']')) {
		const groups = ipv6Groups(host.slice(1, -1));
		return groups === undefined
			? 'an address that is not a valid IPv6 address'
			: ipv6Reason(groups);
	}
	const v4 = ipv4Number(host);
	if (v4 !== undefined) return ipv4Reason(v4);
	if (host === '') return 'an empty host';
	const labels = host.split('.');
	const last = labels[labels.length - 1];
	if (last === 'localhost') return 'a loopback name';
	// A name without a dot is completed by the local resolver's search domains: always a local host.
	if (labels.length === 1) return 'a single-label name, which only your own network resolves';
	if (METADATA_NAMES.includes(host)) return 'a cloud metadata name';
	if (LOCAL_LABELS.has(last)) return `a name under .${last}, which only a private network resolves`;
	return undefined;
}

/** Whether a host is this machine: `localhost`, `127.x.x.x`, `[::1]` or an IPv4-mapped `[::ffff:7f00:1]`. */
export function isLoopbackHost(hostname: string): boolean {
	const host = hostname.toLowerCase().replace(/\.$/, '');
	if (host === 'localhost' || host.endsWith('.localhost')) return true;
	const groups =
		host.startsWith('[') && host.endsWith(']') ? ipv6Groups(host.slice(1, -1)) : undefined;
	if (groups !== undefined && inPrefix(groups, [0, 0, 0, 0, 0, 0, 0, 1], 128)) return true;
	const v4 =
		groups === undefined
			? ipv4Number(host)
			: inPrefix(groups, [0, 0, 0, 0, 0, 0xffff], 96)
				? groups[6] * 65536 + groups[7]
				: undefined;
	return v4 !== undefined && v4 >= 0x7f000000 && v4 <= 0x7fffffff;
}

/** One entry of "Allowed Media Hosts": a host, or `*.` and the hosts under a name, with or without a port. */
export interface HostRule {
	host: string;
	subdomains: boolean;
	port?: string;
}

function defaultPort(url: URL): string {
	return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/**
 * Reads "Allowed Media Hosts" (docs/media.md), or a whole address (`https://cdn.example.com`) as an
 * entry, normalized as URLs normalize hosts; returns the entry it cannot read as `invalid`.
 */
export function readHostRules(text: string): { rules: HostRule[]; invalid?: string } {
	const rules: HostRule[] = [];
	for (const entry of text.split(/[\s,]+/).filter((part) => part !== '')) {
		const subdomains = entry.startsWith('*.');
		let written = subdomains ? entry.slice(2) : entry;
		// A bare IPv6 address (two colons or more, no brackets) is written in brackets for the parser.
		if (!written.includes('[') && !written.includes('/') && (written.match(/:/g) ?? []).length > 1)
			written = `[${written}]`;
		const whole = /^https?:\/\//i.test(written);
		const address = whole ? written : `http://${written}`;
		if (!URL.canParse(address)) return { rules, invalid: entry };
		const url = new URL(address);
		// Only a host and a port: no user, path, query or fragment (a path is at least `/`).
		const bare = `${url.username}${url.password}${url.search}${url.hash}${url.pathname}` === '/';
		if (!bare || url.hostname === '' || (subdomains && /^https?:/i.test(written)))
			return { rules, invalid: entry };
		const port = whole ? defaultPort(url) : url.port || undefined;
		rules.push({ host: url.hostname.replace(/\.$/, ''), subdomains, port });
	}
	return { rules };
}

export function isListedHost(url: URL, rules: HostRule[]): boolean {
	const host = url.hostname.toLowerCase().replace(/\.$/, '');
	return rules.some(
		(rule) =>
			(rule.subdomains ? host.endsWith(`.${rule.host}`) : host === rule.host) &&
			(rule.port === undefined || rule.port === defaultPort(url)),
	);
}
