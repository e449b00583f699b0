export { DxfError } from './errors.js';
export { fingerprintGuid, parseGuid } from './identity.js';
export { readDxf } from './read.js';
export { blankDocument, templateDxf } from './templates.js';
export { MIN_WRITE_VERSION, modeledTableRecords, writeDxf } from './write.js';
