export { diffDocuments, diffRecords, fieldChanges } from './diff.js';
export {
  currentDocument,
  type DocumentHistory,
  emptyHistory,
  foldHistory,
  type SessionHistory,
} from './fold.js';
export { readSessionHistory, SessionHistories } from './histories.js';
export { jsonDifferences } from './json-differences.js';
export { documentAt, headRevision, treeStatus } from './time-travel.js';
export {
  canonicalJson,
  DIGEST_FORMAT,
  digestOf,
  isVerificationDigest,
  type VerificationDigest,
  verificationDigest,
} from './verification.js';
