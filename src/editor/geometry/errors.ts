import { EditorError } from '../errors.js';

// Apart from types.ts so that the matrix and curve modules can throw it without importing the
// expansion counter types.ts builds on (which imports the MINSERT grid, which imports the matrix).

type GeometryErrorCode = 'invalid_transform' | 'not_transformable';

/** A transform the geometry cannot carry out; an EditorError, so its code reaches the caller's answer. */
export class GeometryError extends EditorError {
  declare readonly code: GeometryErrorCode;
  constructor(code: GeometryErrorCode, message: string) {
    super(code, message);
  }
}
