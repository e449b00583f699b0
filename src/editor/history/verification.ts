/**
 * The form in which a session keeps its read model for `chronicle replay --verify`: the state with its
 * large collections (each document's entities, the changes of its undo and redo steps, each answered
 * operation's answer) replaced entry by entry with a digest of the entry's canonical JSON, and
 * everything else in full. A 100,000-entity drawing's state is some 59 MB of JSON, and writing it
 * whole at the session's end was the peak of the editor's memory; its digest is a few MB. A replay
 * digested the same way differs from it exactly where the states differ, and the difference still names
 * the entity by its handle, the step by its place and the operation by its request id.
 */
import { createHash } from 'node:crypto';
import type {
  DocumentState,
  EditorSessionState,
  OperationRecord,
  Step,
} from '../../../projections/editor-session.js';
import { dictGet, dictSet } from '../dict.js';
import type { DxfDocumentModel } from '../model.js';

/** How the digests are made; a snapshot that carries no such field holds the whole state (older sessions). */
export const DIGEST_FORMAT = 'shake256-96 of canonical JSON';

type Digested<T, K extends keyof T, D> = Omit<T, K> & { [P in K]: D };

export type DigestedDocument = Digested<DocumentState, 'model' | 'undo' | 'redo', unknown> & {
  model: Digested<DxfDocumentModel, 'entities', Record<string, string>>;
  undo: Array<Digested<Step, 'changes', string>>;
  redo: Array<Digested<Step, 'changes', string>>;
};

export type VerificationDigest = Digested<EditorSessionState, 'documents' | 'operations', unknown> & {
  digest: typeof DIGEST_FORMAT;
  documents: Record<string, DigestedDocument>;
  operations: Record<string, Digested<OperationRecord, 'answer', string>>;
};

/**
 * The JSON text of `value` with every object's keys sorted: what JSON.stringify writes, key order
 * aside (an `undefined` member is left out, an `undefined` item is `null`), so a value and its JSON
 * round trip read the same.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    // Coordinates, the bulk of a drawing: no object inside, no key to sort.
    if (value.every((item) => item === null || typeof item !== 'object')) return JSON.stringify(value);
    let text = '[';
    for (let i = 0; i < value.length; i++) text += `${i > 0 ? ',' : ''}${canonicalJson(value[i] ?? null)}`;
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  let text = '{';
  for (const key of Object.keys(record).sort()) {
    const member = record[key];
    if (member === undefined) continue;
    text += `${text.length > 1 ? ',' : ''}${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `${text}}`;
}

/**
 * A 96-bit SHAKE256 digest of the value's canonical JSON, base64url: 16 characters, made at that length
 * (a slice of a longer one would keep the longer string alive beside it, 100,000 times over). An
 * array's items are hashed one by one (the same text as a whole), so a step of 1,000 entities never
 * becomes one string.
 */
export function digestOf(value: unknown): string {
  const hash = createHash('shake256', { outputLength: 12 });
  if (Array.isArray(value) && value.length > 1) {
    hash.update('[');
    for (let i = 0; i < value.length; i++)
      hash.update(`${i > 0 ? ',' : ''}${canonicalJson(value[i] ?? null)}`);
    hash.update(']');
  } else hash.update(canonicalJson(value));
  return hash.digest('base64url');
}

/** Each entry's digest. By key (Object.entries would hold a pair array per entity for the whole walk). */
function digestEntries<T>(dict: Readonly<Record<string, T>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(dict)) dictSet(out, key, digestOf(dictGet(dict, key)));
  return out;
}

const digestStep = (step: Step) => ({ ...step, changes: digestOf(step.changes) });

const digestDocument = (doc: DocumentState): DigestedDocument => ({
  ...doc,
  model: { ...doc.model, entities: digestEntries(doc.model.entities) },
  undo: doc.undo.map(digestStep),
  redo: doc.redo.map(digestStep),
});

/** The state's verification digest. Shares the state's small parts: serialize it before the state changes. */
export function verificationDigest(state: EditorSessionState): VerificationDigest {
  const documents: Record<string, DigestedDocument> = {};
  for (const [id, doc] of Object.entries(state.documents)) dictSet(documents, id, digestDocument(doc));
  const operations: VerificationDigest['operations'] = {};
  for (const id of Object.keys(state.operations)) {
    const record = dictGet(state.operations, id) as OperationRecord;
    dictSet(operations, id, { ...record, answer: digestOf(record.answer) });
  }
  return { digest: DIGEST_FORMAT, ...state, documents, operations };
}

/** Whether a live snapshot's state is a digest (sessions since issue 22) rather than the whole state. */
export const isVerificationDigest = (state: unknown): state is VerificationDigest =>
  state !== null && typeof state === 'object' && (state as { digest?: unknown }).digest === DIGEST_FORMAT;
