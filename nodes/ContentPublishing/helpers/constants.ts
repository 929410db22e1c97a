export const CREDENTIAL_TYPE = 'contentPublishingApi';
