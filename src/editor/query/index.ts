export { entityAnswer, selectionAnswer } from './answer.js';
export { QueryError } from './errors.js';
export type { QueryRequest } from './request.js';
export { compareHandles, runQuery, runQuerySliced } from './run.js';
export { SpatialIndex } from './spatial-index.js';
