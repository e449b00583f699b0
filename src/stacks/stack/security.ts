/**
 * When the environments' security settings are held against a compose file
 * (docs/security.md#what-an-edit-grant-can-reach): when a non-admin user saves one (create, compose save, variables that change what it
 * says, a git stack's create), and before every deploy of a stack not wholly written by admins —
 * the files may have changed on disk since, and a git sync brings a new commit.
 */
import { join } from 'node:path';
import { type EnvironmentId, stackStream } from '../../../streams/stacks.js';
import type { EventStore } from '../../store/types.js';
import { composeEnv } from '../compose/args.js';
import { DEFAULT_COMPOSE_SECURITY, securityRefusal } from '../compose/security.js';
import { findEnvironment } from '../config/stacks-config.js';
import type { ComposePlace, ComposeSecurity, StackRef, StacksConfig, StackVariable } from '../contracts.js';
import { StacksError } from '../errors.js';
import { type DeployedParts, evolveAuthors, NO_AUTHORS, type StackAuthors, whyChecked } from './authors.js';
import { COMPOSE_FILE, composeHash, envHash, type Stack, stackDir } from './store.js';

/** How a deploy came by its compose text (stack/authors.ts). */
export type DeployHow = Pick<DeployedParts, 'fetchedFromGit' | 'pinnedBy'>;

export class StackSecurity {
  constructor(
    private readonly options: { config: StacksConfig; store: EventStore; dataDir: string; hashKey: Buffer },
  ) {}

  /** Whether the user of this name is an admin in the config now. */
  isAdmin(user: string | null): boolean {
    return user !== null && this.options.config.users.some((u) => u.name === user && u.admin);
  }

  private settingsOf(env: EnvironmentId): ComposeSecurity {
    const config = this.options.config;
    const found = env === null ? config.localSecurity : findEnvironment(config, env)?.security;
    return found ?? DEFAULT_COMPOSE_SECURITY;
  }

  /** The place of a stack that is no git stack: its folder (which need not exist yet). */
  folderPlace(ref: StackRef): ComposePlace {
    const dir = stackDir(this.options.dataDir, ref);
    return { root: dir, cwd: dir, file: join(dir, COMPOSE_FILE), overrides: [] };
  }

  private refusal(ref: StackRef, text: string, place: ComposePlace, env: Readonly<Record<string, string>>) {
    return securityRefusal(text, {
      place,
      stackDir: stackDir(this.options.dataDir, ref),
      dataDir: this.options.dataDir,
      env,
      security: this.settingsOf(ref.environmentId),
      where: ref.environmentId === null ? 'the local environment' : `environment ${ref.environmentId}`,
    });
  }

  /**
   * A 400 when `user` is no admin and the compose text, with these variables, breaks the settings of the
   * stack's environment. Before compose is asked anything (its own check reads the files too).
   */
  async checkSave(
    ref: StackRef,
    text: string,
    place: ComposePlace,
    variables: readonly StackVariable[],
    user: string | null,
  ): Promise<void> {
    if (this.isAdmin(user)) return;
    const environment =
      ref.environmentId === null ? null : (findEnvironment(this.options.config, ref.environmentId) ?? null);
    const refusal = await this.refusal(ref, text, place, composeEnv(process.env, variables, {}, environment));
    if (refusal) throw refusal;
  }

  /** Who wrote what the stack deploys, from its stream. */
  async authors(ref: StackRef): Promise<StackAuthors> {
    let state = NO_AUTHORS;
    for await (const event of this.options.store.readStream(stackStream(ref.environmentId, ref.name)))
      state = evolveAuthors(state, event);
    return state;
  }

  /**
   * Why a deploy of the stack as its files hold it now is held to what non-admins may do, or undefined
   * when admins wrote every part of it.
   */
  async whyHeld(stack: Stack, how: DeployHow): Promise<string | undefined> {
    return whyChecked(
      await this.authors(stack),
      {
        composeHash: composeHash(stack.compose),
        envHash: envHash(this.options.hashKey, stack.variables),
        secretProvider: stack.secretProvider,
        ...how,
      },
      (user) => this.isAdmin(user),
    );
  }

  /**
   * Before a deploy: a 400 naming what the compose text breaks and why the stack is checked, unless
   * admins wrote every part of it. `env` is what compose gets.
   */
  async checkDeploy(
    stack: Stack,
    text: string,
    place: ComposePlace,
    env: Readonly<Record<string, string>>,
    how: DeployHow,
  ): Promise<void> {
    const why = await this.whyHeld(stack, how);
    if (why === undefined) return;
    const refusal = await this.refusal(stack, text, place, env);
    if (refusal) throw new StacksError('security_refused', `${refusal.message} (checked because ${why})`);
  }
}
