/**
 * Who wrote what a stack deploys, from its stream's events (never from its files, which a container
 * with a mount could rewrite): the last writer of its compose file, of its variables and of its git
 * settings, with the hashes recorded then. A deploy skips the environment's security settings only
 * when every part was written by an admin and the files still hold what was recorded
 * (docs/security.md#what-an-edit-grant-can-reach). Pure: the fold over the events, and the decision.
 */

import type { StacksEventMap } from '../../../streams/stacks.js';
import type { RecordedEvent } from '../../store/types.js';

interface Writer {
  /** The user's name; null for the server itself (a webhook or scheduled git sync). */
  user: string | null;
}

export interface StackAuthors {
  compose: (Writer & { hash: string }) | null;
  variables: (Writer & { hash: string }) | null;
  /** The git settings' writer; null for a stack that is no git stack. */
  git: Writer | null;
  secretProvider: string | null;
}

type Data<T extends keyof StacksEventMap> = StacksEventMap[T];

const userOf = (event: RecordedEvent, recorded: string | null) =>
  recorded ?? (typeof event.metadata.userId === 'string' ? event.metadata.userId : null);

/** The authors after one more event of the stack's stream. */
export function evolveAuthors(state: StackAuthors, event: RecordedEvent): StackAuthors {
  switch (event.type) {
    case 'StackCreated': {
      const d = event.data as Data<'StackCreated'>;
      const user = userOf(event, d.user_id);
      // A stack made again under the name starts afresh.
      return {
        compose: { user, hash: d.compose_hash },
        variables: { user, hash: d.env_hash },
        git: null,
        secretProvider: d.secret_provider,
      };
    }
    case 'StackComposeSaved': {
      const d = event.data as Data<'StackComposeSaved'>;
      return { ...state, compose: { user: userOf(event, d.user_id), hash: d.compose_hash } };
    }
    case 'StackVariablesSet': {
      const d = event.data as Data<'StackVariablesSet'>;
      return { ...state, variables: { user: userOf(event, d.user_id), hash: d.env_hash } };
    }
    case 'GitStackConfigured': {
      const d = event.data as Data<'GitStackConfigured'>;
      return { ...state, git: { user: userOf(event, d.user_id) } };
    }
    case 'StackDeleted':
      return NO_AUTHORS;
    default:
      return state;
  }
}

export const NO_AUTHORS: StackAuthors = { compose: null, variables: null, git: null, secretProvider: null };

/** What a deploy deploys, as its files hold it now. */
export interface DeployedParts {
  composeHash: string;
  envHash: string;
  secretProvider: string | null;
  /**
   * The compose text came from the git stack's repository in this very job (its settings' writer chose
   * it), rather than from the stack's file as last saved.
   */
  fetchedFromGit: boolean;
  /** A redeploy's pinned compose text: chosen by whoever asked for the redeploy. */
  pinnedBy?: string | null;
}

/**
 * Why the deploy is held to the security settings, or undefined when an admin wrote every part it
 * deploys. `isAdmin` answers for a user name of the current config.
 */
export function whyChecked(
  authors: StackAuthors,
  parts: DeployedParts,
  isAdmin: (user: string | null) => boolean,
): string | undefined {
  const who = (user: string | null) => (user === null ? 'the server' : user);
  if (parts.pinnedBy !== undefined) {
    if (!isAdmin(parts.pinnedBy)) return `the redeploy was asked for by ${who(parts.pinnedBy)}`;
  } else if (parts.fetchedFromGit || (authors.git !== null && authors.compose?.user === null)) {
    // A git sync by the server (webhook, schedule) writes what the settings' repository holds.
    if (authors.git === null || !isAdmin(authors.git.user))
      return `its git settings were last written by ${who(authors.git?.user ?? null)}`;
  } else {
    if (authors.compose === null) return 'no recorded writer of its compose file';
    if (authors.compose.hash !== parts.composeHash) return 'its compose file was changed outside chronicle';
    if (!isAdmin(authors.compose.user))
      return `its compose file was last saved by ${who(authors.compose.user)}`;
  }
  if (authors.variables === null) return 'no recorded writer of its variables';
  if (authors.variables.hash !== parts.envHash) return 'its .env was changed outside chronicle';
  if (!isAdmin(authors.variables.user))
    return `its variables were last set by ${who(authors.variables.user)}`;
  if (authors.secretProvider !== parts.secretProvider)
    return 'its secret provider was changed outside chronicle';
  return undefined;
}
