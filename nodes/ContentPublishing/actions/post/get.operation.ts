import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { postLocator } from '../../descriptions/post.locator';
import { requireLocator } from '../../helpers/fields';
import { apiRequest } from '../../transport';

export const description = updateDisplayOptions(
	{ show: { resource: ['post'], operation: ['get'] } },
	[postLocator] as INodeProperties[],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = requireLocator.call(this, 'postId', 'Post', itemIndex);
	return (await apiRequest.call(this, 'getPost', { id, itemIndex })) as IDataObject;
}
