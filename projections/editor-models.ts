import { dictDelete, dictGet, dictSet } from '../src/editor/dict.js';
import type { RecordedEvent } from '../src/store/types.js';
import { isEditorEvent, SESSION_STREAM_PREFIX } from '../streams/editor.js';
import { STREAM_DELETED, type StreamDeletedData, SYSTEM_STREAM } from '../streams/system.js';
import {
  type EditorSessionState,
  editorSessionProjection,
  evolveSession,
  initialSession,
} from './editor-session.js';
import type { Projection } from './projection.js';

/** Every editor session of the log by id: its documents' models, selections, undo stacks and answered operations. */
type EditorModels = Record<string, EditorSessionState>;

/**
 * The editor's read models over the whole log: each session's state, as its editor keeps it (the same
 * evolve), for `chronicle rebuild` and audits. Not persisted (see Projection.persist): a running editor
 * replays its own session from its stream.
 */
export const editorModels: Projection<EditorModels> = {
  name: 'editor-models',
  version: editorSessionProjection('').version,
  persist: false,
  partition: SESSION_STREAM_PREFIX,
  initial: () => ({}),
  evolve(sessions, event: RecordedEvent) {
    if (isEditorEvent(event)) {
      const id = event.stream.slice(SESSION_STREAM_PREFIX.length);
      let session = dictGet(sessions, id);
      if (!session) {
        session = initialSession(id);
        dictSet(sessions, id, session);
      }
      evolveSession(session, event);
    } else if (event.stream === SYSTEM_STREAM && event.type === STREAM_DELETED) {
      const stream = (event.data as StreamDeletedData).stream;
      if (stream.startsWith(SESSION_STREAM_PREFIX))
        dictDelete(sessions, stream.slice(SESSION_STREAM_PREFIX.length));
    }
    return sessions;
  },
};
