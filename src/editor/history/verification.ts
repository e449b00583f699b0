/**
 * The form in which a session keeps its read model for `chronicle replay --verify`: the state with its
 * large collections (each document's entities, the changes of its undo and redo steps, each answered
 * operation's answer) replaced entry by entry with a digest of the entry's canonical JSON (a step's
 * entities written in it as their own digests), and everything else in full. A 100,000-entity drawing's state is some 59 MB of JSON, and writing it
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
import type { Change } from '../../../streams/editor.js';
import { dictGet, dictSet } from '../dict.js';
import type { DxfDocumentModel, Entity } from '../model.js';

/** How the digests are made; a snapshot that carries no such field holds the whole state (older sessions). */
export const DIGEST_FORMAT = "shake256-96 of canonical JSON; a step's entities as their digests";

type Digested<T, K extends keyof T, D> = Omit<T, K> & { [P in K]: D };

type DigestedDocument = Digested<DocumentState, 'model' | 'undo' | 'redo', unknown> & {
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
    let flat = true;
    for (let i = 0; i < value.length && flat; i++) flat = value[i] === null || typeof value[i] !== 'object';
    // Coordinates, the bulk of a drawing: no object inside, no key to sort.
    if (flat) return JSON.stringify(value);
    let text = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) text += ',';
      text += canonicalJson(value[i] ?? null);
    }
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length > 1) keys.sort();
  let text = '{';
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    if (text.length > 1) text += ',';
    text += JSON.stringify(key);
    text += ':';
    text += canonicalJson(member);
  }
  return `${text}}`;
}

/** A 96-bit SHAKE256 digest of a text, base64url: 16 characters, made at that length (see digestOf). */
const hashOf = (text: string) =>
  createHash('shake256', { outputLength: 12 }).update(text).digest('base64url');

/**
 * The digest of a value's canonical JSON. Made at its length: a slice of a longer one would keep the
 * longer string alive beside it, 100,000 times over.
 */
export const digestOf = (value: unknown): string => hashOf(canonicalJson(value));

/**
 * A step's changes: the digest of their canonical JSON with each entity written as its digest (`digest`
 * gives it), hashed change by change (a step of 1,000 entities never becomes one string).
 */
function changesDigest(
  changes: readonly Change[],
  digest: (entity: Entity, handle: string) => string,
): string {
  const hash = createHash('shake256', { outputLength: 12 });
  hash.update('[');
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i] as Change;
    const text =
      change.kind === 'entity'
        ? canonicalJson({
            ...change,
            before: change.before && digest(change.before, change.key),
            after: change.after && digest(change.after, change.key),
          })
        : canonicalJson(change);
    hash.update(i > 0 ? `,${text}` : text);
  }
  hash.update(']');
  return hash.digest('base64url');
}

function digestDocument(doc: DocumentState): DigestedDocument {
  const model = doc.model;
  const entities: Record<string, string> = {};
  // By key: Object.entries would hold a pair array per entity for the whole walk.
  for (const handle of Object.keys(model.entities))
    dictSet(entities, handle, digestOf(dictGet(model.entities, handle)));
  // The undo steps hold the very entity objects the model does (what a step made is what the model
  // has): those are digested once. Digesting them twice was half the work of a close.
  const digest = (entity: Entity, handle: string) =>
    dictGet(model.entities, handle) === entity ? (dictGet(entities, handle) as string) : digestOf(entity);
  const step = (s: Step) => ({ ...s, changes: changesDigest(s.changes, digest) });
  return { ...doc, model: { ...model, entities }, undo: doc.undo.map(step), redo: doc.redo.map(step) };
}

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

/** Whether a live snapshot's state is a digest (sessions of newer builds) rather than the whole state. */
export const isVerificationDigest = (state: unknown): state is VerificationDigest =>
  state !== null && typeof state === 'object' && (state as { digest?: unknown }).digest === DIGEST_FORMAT;
