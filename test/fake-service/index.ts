export * from './openapi';
export * from './request-validator';
export * from './server';
