import { describeInN8n } from './n8n-suite';

describeInN8n('v1');
