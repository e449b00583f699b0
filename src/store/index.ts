export * from '../../streams/system.js';
export * from './errors.js';
export { openStore } from './open.js';
export type * from './types.js';
