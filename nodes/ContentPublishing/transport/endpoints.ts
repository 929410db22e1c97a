import { UnexpectedError, type IHttpRequestMethods } from 'n8n-workflow';

export interface Endpoint {
	method: IHttpRequestMethods;
	/** Path below the base URL; `{id}` stands for the URL-encoded resource id. */
	path: string;
}

/**
 * Every endpoint the node calls, by purpose, with the method and path the node uses when the
 * service's OpenAPI document does not say otherwise. Operations name an entry here and never build
 * a URL of their own; the contract (contract.ts) finds each in the document by its path, whatever
 * the path parameter is called, and by its method (an update may be a PATCH or a PUT).
 */
export const ENDPOINTS = {
	getOpenApiDocument: { method: 'GET', path: '/v1/openapi.json' },
	getAccount: { method: 'GET', path: '/v1/me' },
	listPages: { method: 'GET', path: '/v1/pages' },
	getPage: { method: 'GET', path: '/v1/pages/{id}' },
	createPost: { method: 'POST', path: '/v1/posts' },
	listPosts: { method: 'GET', path: '/v1/posts' },
	getPost: { method: 'GET', path: '/v1/posts/{id}' },
	updatePost: { method: 'PATCH', path: '/v1/posts/{id}' },
	deletePost: { method: 'DELETE', path: '/v1/posts/{id}' },
	generateBlog: { method: 'POST', path: '/v1/generate/blog' },
	generateLinkedin: { method: 'POST', path: '/v1/generate/linkedin' },
	generateTwitter: { method: 'POST', path: '/v1/generate/twitter' },
	generateCarousel: { method: 'POST', path: '/v1/generate/carousel' },
	generateVideo: { method: 'POST', path: '/v1/generate/video' },
	publishLinkedin: { method: 'POST', path: '/v1/publish/linkedin' },
	publishTwitter: { method: 'POST', path: '/v1/publish/twitter' },
	getJob: { method: 'GET', path: '/v1/jobs/{id}' },
	createWebhook: { method: 'POST', path: '/v1/webhooks' },
	listWebhooks: { method: 'GET', path: '/v1/webhooks' },
	getWebhook: { method: 'GET', path: '/v1/webhooks/{id}' },
	updateWebhook: { method: 'PATCH', path: '/v1/webhooks/{id}' },
	deleteWebhook: { method: 'DELETE', path: '/v1/webhooks/{id}' },
} as const satisfies Record<string, Endpoint>;

export type EndpointName = keyof typeof ENDPOINTS;

/**
 * Whether an id could not name a single resource: empty, or `.`/`..` (also percent-encoded),
 * which a URL resolves to the path above it, so `DELETE /v1/posts/..` would reach `DELETE /v1/`.
 */
export function isUnsafeId(id: string): boolean {
	let decoded = id.trim();
	// Decoding until nothing changes catches %2e and %252e alike; a few rounds are enough.
	for (let round = 0; round < 4; round++) {
		let next: string;
		try {
			next = decodeURIComponent(decoded).trim();
		} catch {
			break;
		}
		if (next === decoded) break;
		decoded = next;
	}
	return decoded === '' || decoded === '.' || decoded === '..';
}

/** Resolves an endpoint's path, encoding the id so that it can never address another route. */
export function endpointPath(name: EndpointName, path: string, id?: string): string {
	if (!path.includes('{id}')) return path;
	if (id === undefined || isUnsafeId(id)) {
		throw new UnexpectedError(`Endpoint ${name} needs an id that names one resource, not "${id ?? ''}"`);
	}
	return path.replace('{id}', encodeURIComponent(id));
}
