import { keepInMemory } from './memory';

/**
 * The one origin rule (docs/service.md, "Where requests go"): every request goes to the origin of
 * the credential's Base URL, and an operation's below its path, whatever a service's document, an
 * override or an answer says. As OWASP's SSRF guidance asks, the URL is checked as built, not only
 * its parts: `http://host:1` + `@other:2/v1/me` names another host, `%2e%2e` is `..` to a URL.
 */

/** No real API's path comes near it (the longest in 14 public documents: 118 characters). */
const MAX_PATH_LENGTH = 200;

// RFC 3986 path characters (`pchar` and `/`), `{}` around a template's parameter; `%` before two hex digits.
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@{}%/]*$/;
const BARE_PERCENT = /%(?![0-9A-Fa-f]{2})/;

/** A text decoded as often as a server might (`%252e` is `.` to one that decodes twice). */
function decodedFully(text: string, rounds = 4): string {
	try {
		const next = decodeURIComponent(text);
		return next === text || rounds === 1 ? next : decodedFully(next, rounds - 1);
	} catch {
		return text;
	}
}

/**
 * Whether a segment is `.` or `..`, or holds one between slashes, once decoded: `%2e%2e`, `..%2f..`
 * (a proxy such as nginx decodes and resolves the path before it routes).
 */
export function isDotSegment(segment: string): boolean {
	return (segment.includes('%') ? decodedFully(segment) : segment)
		.split(/[\\/]/)
		.some((part) => ['.', '..'].includes(part.trim()));
}

/** Why a path from a document or an override cannot be followed, or undefined for a plain path. */
export function pathProblem(path: string): string | undefined {
	if (path.length > MAX_PATH_LENGTH)
		return `it is longer than ${MAX_PATH_LENGTH} characters, which no API's path is`;
	if (!PLAIN_PATH.test(path) || BARE_PERCENT.test(path))
		return 'it is not a plain path: it must start with "/" and hold only path characters (no host, backslash, space, control character, "?" or "#")';
	// A trailing slash is a path of its own (`/posts/`); an empty segment elsewhere is not.
	if (path.slice(0, -1).includes('//')) return 'it has an empty segment ("//")';
	// Only a path with an escape is split and decoded: a document may have 10,000 paths.
	const dotted = path.includes('%')
		? path.split('/').some(isDotSegment)
		: /\/\.\.?(\/|$)/.test(path);
	if (dotted)
		return 'it has a "." or ".." segment (also percent-encoded), which leaves its place below the Base URL';
	return undefined;
}

/**
 * Why a built address may not receive the API key, or undefined: it must be at the Base URL's origin
 * without a user name or password, and with `below`, below the Base URL's path with no dot segment.
 */
export function outsideBase(baseUrl: string, target: string, below: boolean): string | undefined {
	const url = parsedTarget(target);
	if (url === undefined) return 'it is not an address';
	const base = parsedBase(baseUrl);
	if (url.origin !== base.origin) return `it is at ${url.origin}, not ${base.origin}`;
	if (url.userinfo) return 'it carries a user name or password';
	if (!below) return undefined;
	const { prefix } = base;
	if (!url.pathname.startsWith(`${prefix}/`)) return `its path is not below ${prefix || '/'}`;
	url.dotted ??= url.pathname.split('/').some(isDotSegment);
	return url.dotted ? 'its path has a "." or ".." segment' : undefined;
}

// Every request checks its address against the same Base URL: it is parsed once, not per request.
let lastBase: { baseUrl: string; origin: string; prefix: string } | undefined;

function parsedBase(baseUrl: string): { origin: string; prefix: string } {
	if (lastBase?.baseUrl !== baseUrl) {
		const { origin, pathname } = new URL(baseUrl);
		lastBase = { baseUrl, origin, prefix: pathname.replace(/\/+$/, '') };
	}
	return lastBase;
}

// A request's address is checked as built and again as the last check before it is sent: the
// parts those checks read are kept for the latest addresses, so that each is parsed once.
const MAX_PARSED_TARGETS = 64;
const MAX_KEPT_TARGET_LENGTH = 2048;
type Target = { origin: string; userinfo: boolean; pathname: string; dotted?: boolean };
const parsedTargets = new Map<string, Target | undefined>();

function parsedTarget(target: string): Target | undefined {
	if (parsedTargets.has(target)) return parsedTargets.get(target);
	let parsed: Target | undefined;
	try {
		const { origin, username, password, pathname } = new URL(target);
		parsed = { origin, userinfo: username !== '' || password !== '', pathname };
	} catch {
		parsed = undefined;
	}
	if (target.length <= MAX_KEPT_TARGET_LENGTH)
		keepInMemory(parsedTargets, target, parsed, MAX_PARSED_TARGETS);
	return parsed;
}
