import { describe, expect, it } from 'vitest';
import {
  checkEnvAccess,
  checkRunAccess,
  hasGlobal,
  hasScoped,
  mayAccess,
  userByToken,
} from '../../src/stacks/access/auth.js';
import { resolveStacksConfig } from '../../src/stacks/config/stacks-config.js';
import type { Grant, User } from '../../src/stacks/contracts.js';

const user = (grants: Grant[], environmentAccess: User['environmentAccess'] = [], admin = false): User => ({
  name: 'u',
  token: 't',
  admin,
  grants,
  environmentAccess,
});

const USERS = {
  admin: user([], [], true),
  none: user([]),
  /** view from a grant without an environment list: the global permission only, no access. */
  viewAny: user([{ resource: 'stacks', actions: ['view'] }]),
  /** the same with access to every environment: access gives no scoped permission. */
  viewAnyAccess: user([{ resource: 'stacks', actions: ['view'] }], '*'),
  /** a global-only grant beside one scoped to env 1. */
  viewAnyAnd1: user(
    [
      { resource: 'stacks', actions: ['view'] },
      { resource: 'stacks', actions: ['view'], environments: [1] },
    ],
    '*',
  ),
  /** view on local and env 1, access to 1. */
  viewLocal1: user([{ resource: 'stacks', actions: ['view'], environments: [null, 1] }], [1]),
  /** view on env 2 only, with access to 1 and 2. */
  view2: user([{ resource: 'stacks', actions: ['view'], environments: [2] }], [1, 2]),
  /** view on "*", access to all. */
  viewStar: user([{ resource: 'stacks', actions: ['view'], environments: '*' }], '*'),
  /** edit on "*" without view. */
  editOnly: user([{ resource: 'stacks', actions: ['edit'], environments: '*' }], '*'),
  /** view and edit on 1 with access to 1. */
  both1: user([{ resource: 'stacks', actions: ['view', 'edit'], environments: [1] }], [1]),
  /** a grant on another resource gives nothing here. */
  otherResource: user([{ resource: 'schedules', actions: ['view', 'edit'] }], '*'),
  /** an empty environment list still gives the global permission. */
  viewEmptyList: user([{ resource: 'stacks', actions: ['view'], environments: [] }], [1]),
  /** grants split across entries. */
  split: user(
    [
      { resource: 'stacks', actions: ['view'], environments: [1] },
      { resource: 'stacks', actions: ['edit'], environments: [2] },
    ],
    [1, 2],
  ),
} satisfies Record<string, User>;
type Who = keyof typeof USERS;

describe('userByToken', () => {
  const { config } = resolveStacksConfig({
    users: [
      { name: 'a', token: 't-admin', admin: true },
      { name: 'b', token: 't-view' },
      { name: 'c', token: 't-view-longer' },
    ],
  });

  it.each<[string | undefined, string | undefined]>([
    ['Bearer t-admin', 'a'],
    ['Bearer t-view', 'b'],
    ['Bearer t-view-longer', 'c'],
    ['bearer t-view', 'b'],
    ['BEARER t-view', 'b'],
    ['Bearer   t-view  ', 'b'],
    ['Bearer\tt-view', 'b'],
    [undefined, undefined],
    ['', undefined],
    ['Bearer', undefined],
    ['Bearer ', undefined],
    ['t-view', undefined],
    ['Basic t-view', undefined],
    ['Bearer t-vie', undefined],
    ['Bearer t-view-', undefined],
    ['Bearer T-VIEW', undefined],
    ['Bearer t-view extra', undefined],
    ['Bearert-view', undefined],
    [' Bearer t-view', undefined],
  ])('%j -> %s', (header, name) => {
    expect(userByToken(config, header)?.name).toBe(name);
  });

  it('finds the generated admin', () => {
    const loaded = resolveStacksConfig({});
    expect(userByToken(loaded.config, `Bearer ${loaded.generatedAdminToken}`)?.admin).toBe(true);
  });
});

describe('hasGlobal / hasScoped / mayAccess', () => {
  it.each<[Who, 'view' | 'edit', boolean]>([
    ['admin', 'view', true],
    ['admin', 'edit', true],
    ['none', 'view', false],
    ['viewAny', 'view', true],
    ['viewAny', 'edit', false],
    ['view2', 'view', true],
    ['editOnly', 'view', false],
    ['editOnly', 'edit', true],
    ['otherResource', 'view', false],
    ['viewEmptyList', 'view', true],
    ['split', 'edit', true],
  ])('hasGlobal(%s, %s) = %s', (who, action, expected) => {
    expect(hasGlobal(USERS[who], action)).toBe(expected);
  });

  it.each<[Who, 'view' | 'edit', number | null, boolean]>([
    ['admin', 'edit', 7, true],
    ['admin', 'view', null, true],
    ['none', 'view', null, false],
    ['none', 'view', 1, false],
    // A grant without an environment list is global only: no environment-scoped permission.
    ['viewAny', 'view', 5, false],
    ['viewAny', 'view', 1, false],
    ['viewAny', 'view', null, true],
    ['viewAnyAccess', 'view', 1, false],
    ['viewAnyAnd1', 'view', 1, true],
    ['viewAnyAnd1', 'view', 2, false],
    ['viewLocal1', 'view', 1, true],
    ['viewLocal1', 'view', 2, false],
    ['viewLocal1', 'view', null, true],
    // null uses the global check: a grant scoped to env 2 only still gives local view.
    ['view2', 'view', null, true],
    ['view2', 'view', 2, true],
    ['view2', 'view', 1, false],
    ['viewStar', 'view', 99, true],
    ['viewStar', 'edit', 99, false],
    ['editOnly', 'view', 1, false],
    ['editOnly', 'edit', 1, true],
    ['otherResource', 'view', 1, false],
    ['viewEmptyList', 'view', 1, false],
    ['viewEmptyList', 'view', null, true],
    ['split', 'view', 1, true],
    ['split', 'view', 2, false],
    ['split', 'edit', 2, true],
    ['split', 'edit', 1, false],
  ])('hasScoped(%s, %s, %s) = %s', (who, action, env, expected) => {
    expect(hasScoped(USERS[who], action, env)).toBe(expected);
  });

  it.each<[Who, number, boolean]>([
    ['admin', 3, true],
    ['none', 1, false],
    ['viewLocal1', 1, true],
    ['viewLocal1', 2, false],
    ['viewStar', 1234, true],
    ['view2', 1, true],
  ])('mayAccess(%s, %d) = %s', (who, env, expected) => {
    expect(mayAccess(USERS[who], env)).toBe(expected);
  });
});

const OK = { ok: true };
const deny = (error: string) => ({ ok: false, status: 403, error: `forbidden: ${error}` });

describe('checkRunAccess (global, then the run environment)', () => {
  it.each<[Who, 'view' | 'edit', number | null, object]>([
    ['admin', 'edit', 5, OK],
    ['admin', 'view', null, OK],
    ['none', 'view', null, deny('needs the stacks view permission')],
    ['none', 'view', 1, deny('needs the stacks view permission')],
    ['viewLocal1', 'view', null, OK],
    ['viewLocal1', 'view', 1, OK],
    ['viewLocal1', 'view', 2, deny('needs the stacks view permission for environment 2')],
    ['viewLocal1', 'edit', 1, deny('needs the stacks edit permission')],
    // A grant without an environment list reads local runs only.
    ['viewAny', 'view', null, OK],
    ['viewAny', 'view', 3, deny('needs the stacks view permission for environment 3')],
    ['viewAnyAccess', 'view', 1, deny('needs the stacks view permission for environment 1')],
    ['viewAnyAnd1', 'view', 1, OK],
    // The run check scopes the permission only: no environment-access check (spec).
    ['viewStar', 'view', 3, OK],
    ['view2', 'view', null, OK],
    ['view2', 'view', 1, deny('needs the stacks view permission for environment 1')],
    ['editOnly', 'view', 1, deny('needs the stacks view permission')],
    ['editOnly', 'edit', 1, OK],
    ['split', 'edit', 1, deny('needs the stacks edit permission for environment 1')],
    ['split', 'edit', 2, OK],
    ['otherResource', 'view', null, deny('needs the stacks view permission')],
  ])('%s %s run in env %s', (who, action, env, expected) => {
    expect(checkRunAccess(USERS[who], action, env)).toEqual(expected);
  });
});

describe('checkEnvAccess (list and stack routes)', () => {
  it.each<[Who, 'view' | 'edit', number | null, object]>([
    ['admin', 'edit', 9, OK],
    ['admin', 'view', null, OK],
    ['none', 'view', null, deny('needs the stacks view permission')],
    ['none', 'view', 1, deny('needs the stacks view permission for environment 1')],
    // null: the permission somewhere, no access check.
    ['view2', 'view', null, OK],
    ['viewEmptyList', 'view', null, OK],
    ['editOnly', 'view', null, deny('needs the stacks view permission')],
    // numeric: scoped permission, then access.
    ['viewLocal1', 'view', 1, OK],
    ['viewLocal1', 'view', 2, deny('needs the stacks view permission for environment 2')],
    ['viewAny', 'view', 1, deny('needs the stacks view permission for environment 1')],
    ['viewAny', 'view', null, OK],
    ['viewAnyAccess', 'view', 1, deny('needs the stacks view permission for environment 1')],
    ['viewAnyAnd1', 'view', 1, OK],
    ['viewAnyAnd1', 'view', 2, deny('needs the stacks view permission for environment 2')],
    ['viewLocal1', 'view', 1, OK],
    ['view2', 'view', 2, OK],
    ['view2', 'view', 2, OK],
    ['view2', 'view', 1, deny('needs the stacks view permission for environment 1')],
    ['viewStar', 'view', 42, OK],
    ['viewStar', 'edit', 42, deny('needs the stacks edit permission for environment 42')],
    ['both1', 'edit', 1, OK],
    ['both1', 'edit', null, OK],
    ['both1', 'view', 2, deny('needs the stacks view permission for environment 2')],
    ['split', 'edit', 2, OK],
    ['split', 'edit', 1, deny('needs the stacks edit permission for environment 1')],
  ])('%s %s in env %s', (who, action, env, expected) => {
    expect(checkEnvAccess(USERS[who], action, env)).toEqual(expected);
  });
});

describe('"localEnvironment": "explicit" (the local environment needs null in a grant)', () => {
  const explicit = (who: Who): User => ({ ...USERS[who], localEnvironment: 'explicit' });
  const OK = { ok: true };
  const deny = (error: string) => ({ ok: false, status: 403, error: `forbidden: ${error}` });
  it.each<[Who, 'view' | 'edit', { ok: boolean }]>([
    ['admin', 'edit', OK],
    // A grant scoped to environment 1 reaches the local environment no more.
    ['both1', 'edit', deny('needs the stacks edit permission for the local environment')],
    ['both1', 'view', deny('needs the stacks view permission for the local environment')],
    ['viewAny', 'view', deny('needs the stacks view permission for the local environment')],
    ['viewEmptyList', 'view', deny('needs the stacks view permission for the local environment')],
    // A grant listing null, or "*", does.
    ['viewLocal1', 'view', OK],
    ['viewLocal1', 'edit', deny('needs the stacks edit permission for the local environment')],
    ['viewStar', 'view', OK],
    ['editOnly', 'edit', OK],
  ])('%s %s in the local environment', (who, action, expected) => {
    expect(checkEnvAccess(explicit(who), action, null)).toEqual(expected);
    expect(checkRunAccess(explicit(who), action, null).ok).toBe(expected.ok);
    expect(hasScoped(explicit(who), action, null)).toBe(expected.ok);
  });

  it('changes nothing for numeric environments', () => {
    expect(checkEnvAccess(explicit('both1'), 'edit', 1)).toEqual(OK);
    expect(checkEnvAccess(explicit('both1'), 'edit', 2).ok).toBe(false);
    expect(checkRunAccess(explicit('viewLocal1'), 'view', 1)).toEqual(OK);
  });

  it('is set on every user by the config, and the default keeps the global check', () => {
    const users = [
      { name: 'e', token: 't-e', grants: [{ resource: 'stacks', actions: ['edit'], environments: [1] }] },
    ];
    const environments = [{ id: 1, name: 'edge' }];
    const strict = resolveStacksConfig({ localEnvironment: 'explicit', users, environments }).config
      .users[0] as User;
    expect(checkEnvAccess(strict, 'edit', null).ok).toBe(false);
    const plain = resolveStacksConfig({ users, environments }).config.users[0] as User;
    expect(checkEnvAccess(plain, 'edit', null).ok).toBe(true);
    const named = resolveStacksConfig({ localEnvironment: 'global', users, environments }).config
      .users[0] as User;
    expect(checkEnvAccess(named, 'edit', null).ok).toBe(true);
  });
});
