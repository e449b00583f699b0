/** The document model lives in the event catalog (its events carry it); the editor reads it from here. */
export * from '../../streams/editor-model.js';
