export {
  cloneJson,
  type EntityAnswer,
  entityAnswer,
  entityText,
  GEOMETRY_FIELDS,
  selectionAnswer,
} from './answer.js';
export { QueryError, type QueryErrorCode } from './errors.js';
export {
  DEFAULT_CONTAINS_TOLERANCE,
  type ParsedQuery,
  parseQuery,
  type QueryRequest,
  toNumber,
} from './request.js';
export { compareHandles, type QueryAnswer, runQuery, runQuerySliced } from './run.js';
export {
  type IndexItem,
  type NearestOptions,
  type Neighbour,
  SpatialIndex,
  type Window,
} from './spatial-index.js';
export { parseWhere, pointerTokens, type WhereFilter } from './where.js';
