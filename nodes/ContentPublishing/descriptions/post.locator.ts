import { resourceLocator } from './common';

export const postLocator = resourceLocator({
	name: 'postId',
	displayName: 'Post',
	resourcePath: 'posts',
	searchListMethod: 'searchPosts',
});
