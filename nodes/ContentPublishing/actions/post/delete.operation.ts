import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { postLocator } from '../../descriptions/post.locator';
import { requireLocator } from '../../helpers/fields';
import { apiRequest } from '../../transport';

export const description = updateDisplayOptions(
	{ show: { resource: ['post'], operation: ['delete'] } },
	[postLocator] as INodeProperties[],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = requireLocator.call(this, 'postId', 'Post', itemIndex);
	const answer = await apiRequest.call(this, 'deletePost', { id, itemIndex });
	return { id, deleted: true, ...((answer ?? {}) as IDataObject) };
}
