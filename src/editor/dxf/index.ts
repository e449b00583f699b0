export { DxfError, type DxfErrorCode } from './errors.js';
export { fingerprintGuid, newGuid, parseGuid } from './identity.js';
export { type ReadDxfOptions, readDxf } from './read.js';
export { blankDocument, type TemplateName, templateDxf } from './templates.js';
export { MIN_WRITE_VERSION, modeledTableRecords, writeDxf } from './write.js';
