export { type DocumentDiff, diffDocuments, diffRecords, type FieldChange, fieldChanges } from './diff.js';
export {
  type Checkpoint,
  type CheckpointPolicy,
  currentDocument,
  DEFAULT_CHECKPOINTS,
  type DocumentHistory,
  emptyHistory,
  foldHistory,
  type Revision,
  type RevisionKind,
  type SessionHistory,
} from './fold.js';
export { readSessionHistory, SessionHistories } from './histories.js';
export { jsonDifferences } from './json-differences.js';
export { documentAt, headRevision, revisionOf, type TreeStatus, treeStatus } from './time-travel.js';
export {
  canonicalJson,
  DIGEST_FORMAT,
  digestOf,
  isVerificationDigest,
  type VerificationDigest,
  verificationDigest,
} from './verification.js';
