import { EditorError } from '../errors.js';

type QueryErrorCode = 'invalid_query' | 'invalid_point' | 'invalid_where' | 'entity_absent';

/** A query the engine refuses: bad parameter (`invalid_query`), coordinates, filter, or unknown handle. */
export class QueryError extends EditorError {
  declare readonly code: QueryErrorCode;
  constructor(code: QueryErrorCode, message: string) {
    super(code, message);
  }
}
