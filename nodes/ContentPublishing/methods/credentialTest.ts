// The credential's Test in n8n's credential dialog, named by `testedBy` in both nodes.
export { testCredential as contentPublishingApiTest } from '../../shared/transport/credentialTest';
