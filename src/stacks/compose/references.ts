/**
 * What a compose model names on the host and which of its settings reach past the container: the
 * input of the security checks (compose/security.ts). Pure: the model is the `yaml` parse of the file
 * (anchors and merge keys resolved), values are read after compose's substitution (one reading per
 * environment a value may be substituted from), and nothing here touches a file.
 *
 * The keys are those of the Compose Specification that make compose (or the builder it drives) read a
 * host path, or make a container share the host:
 * - paths: `build` (a string) and `build.context`, `build.dockerfile` (relative to the context),
 *   `build.additional_contexts`, `build.ssh` (a key file; `default` forwards the server's SSH agent),
 *   `env_file`, `label_file`, `extends.file`, `include` (and its `env_file`, `project_directory`),
 *   top-level `secrets.*.file` and `configs.*.file`;
 * - bind mounts: a service's `volumes` (short syntax whose source starts with `.`, `/` or `~`; long
 *   syntax `type: bind`) and a top-level volume's `driver_opts.device`;
 * - settings: `privileged`, `build.privileged`, `build.entitlements`, confinement turned off in
 *   `security_opt`; host namespaces (`pid`, `ipc`, `uts`, `userns_mode`, `cgroup`, `network_mode` and
 *   `build.network` set to `host`, a network that is the host's); `devices`, `device_cgroup_rules`,
 *   `gpus`, device reservations; `cap_add`; `sysctls`.
 * Remote build contexts (`https://`, `git://`, `ssh://`, `git@…`) name no host path.
 */
import { interpolate, UncheckableValue } from './interpolation.js';

/** The security setting a finding falls under (docs/security.md#what-an-edit-grant-can-reach, the config's `security`). */
export type SecuritySetting = 'privileged' | 'hostNamespaces' | 'devices' | 'capAdd' | 'sysctls';

/** How a named path is used, which decides the rule it is held to. */
type PathUse =
  /** a file compose or the builder reads */
  | 'file'
  /** a folder the builder reads whole */
  | 'context'
  /** a host path mounted into a container */
  | 'bind'
  /** a compose file that is read as part of this one (include, extends) */
  | 'compose';

export interface PathReference {
  /** Where the path is named: `services.web.build.context`. */
  key: string;
  /** As written in the file. */
  written: string;
  /** After substitution (one per environment the value may be read with). */
  values: string[];
  /** The folder a relative value is relative to (an absolute path, or a reference's key for dockerfile). */
  base: string | { contextOf: string };
  use: PathUse;
  /** For `include` and `extends`: what the named file brings in. */
  brings?: { service?: string; projectDirectory?: string[]; envFiles?: string[] };
}

interface SettingFinding {
  key: string;
  /** What is set, as a message shows it. */
  value: string;
  setting: SecuritySetting;
}

export interface ComposeReferences {
  paths: PathReference[];
  settings: SettingFinding[];
  /** `build.ssh: default` and the like: the server's SSH agent forwarded to a build. */
  agents: string[];
  /** Parts whose values cannot be known as compose will read them (compose/interpolation.ts), and why. */
  uncheckable: string[];
}

type Model = Record<string, unknown>;
const isObject = (v: unknown): v is Model => v !== null && typeof v === 'object' && !Array.isArray(v);
const isScalar = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** A value after substitution with each environment, distinct. */
function readings(value: string | number | boolean, envs: readonly Environment[]): string[] {
  const text = String(value);
  if (!text.includes('$')) return [text];
  return [...new Set(envs.map((env) => interpolate(text, env)))];
}

type Environment = Readonly<Record<string, string | undefined>>;

const REMOTE = /^(?:[a-z][a-z0-9+.-]*:\/\/|git@)/i;
/** Whether a build context or additional context names something else than a host path. */
const isRemote = (value: string) => REMOTE.test(value) && !value.toLowerCase().startsWith('oci-layout://');

/** Truthy as compose reads a boolean field (it also takes `"true"`, `"yes"`...): anything but false. */
function isSet(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (isScalar(value)) {
    const text = String(value).trim().toLowerCase();
    return !['', 'false', '0', 'no', 'n', 'off'].includes(text);
  }
  return true;
}

const nonEmpty = (value: unknown) =>
  Array.isArray(value) ? value.length > 0 : isObject(value) ? Object.keys(value).length > 0 : isSet(value);

/** The strings of a `string | list` field, or of a list of `{path}` entries. */
function pathList(value: unknown): Array<{ at: string; value: string | number | boolean }> {
  if (isScalar(value)) return [{ at: '', value }];
  if (!Array.isArray(value)) return [];
  return value.flatMap((item, i) => {
    if (isScalar(item)) return [{ at: `[${i}]`, value: item }];
    if (isObject(item) && isScalar(item.path)) return [{ at: `[${i}].path`, value: item.path }];
    return [];
  });
}

/** Confinement turned off by a `security_opt` entry (`seccomp:unconfined`, `label=disable`...). */
const UNCONFINED = /^(?:seccomp|apparmor|systempaths)[=:]unconfined$|^label[=:]disable$/i;

interface ReferenceOptions {
  /** The environments values may be substituted from (compose's own, and its `.env` read either way). */
  envs: readonly Environment[];
  /** The folder relative paths of this file are relative to (its project directory). */
  projectDir: string;
  /** Only this service (an `extends` brings one service, not the file's others). */
  service?: string;
}

/** The references of one compose file's model (a parsed mapping). */
export function composeReferences(model: Model, options: ReferenceOptions): ComposeReferences {
  const out: ComposeReferences = { paths: [], settings: [], agents: [], uncheckable: [] };
  /** Reads one part; a value that cannot be read is recorded with the part's key, and the rest go on. */
  const guard = (key: string, work: () => void) => {
    try {
      work();
    } catch (error) {
      if (!(error instanceof UncheckableValue)) throw error;
      out.uncheckable.push(`${key}: ${error.message}`);
    }
  };
  const { envs, projectDir } = options;
  const read = (value: string | number | boolean) => readings(value, envs);
  const path = (
    key: string,
    value: string | number | boolean,
    use: PathUse,
    base: PathReference['base'] = projectDir,
  ) => out.paths.push({ key, written: String(value), values: read(value), base, use });
  const setting = (key: string, value: unknown, which: SecuritySetting) => {
    const shown = isScalar(value) ? read(value).join(' | ') : JSON.stringify(value);
    out.settings.push({ key, value: shown, setting: which });
  };
  const hostMode = (key: string, value: unknown) => {
    if (!isScalar(value)) return;
    if (read(value).some((v) => v.trim().toLowerCase() === 'host')) setting(key, value, 'hostNamespaces');
  };
  const flag = (key: string, value: unknown, which: SecuritySetting) => {
    if (isScalar(value) ? read(value).some((v) => isSet(v)) : isSet(value)) setting(key, value, which);
  };

  const services = isObject(model.services) ? model.services : {};
  for (const [name, service] of Object.entries(services)) {
    if (options.service !== undefined && name !== options.service) continue;
    if (!isObject(service)) continue;
    const at = `services.${name}`;
    guard(at, () => {
      // Build: what the builder reads, and how it runs.
      const build = service.build;
      if (isScalar(build)) {
        if (!read(build).every(isRemote)) path(`${at}.build`, build, 'context');
      } else if (isObject(build)) {
        const context = isScalar(build.context) ? build.context : '.';
        const contextKey = `${at}.build.context`;
        const remote = read(context).every(isRemote);
        if (!remote) path(contextKey, context, 'context');
        if (isScalar(build.dockerfile) && !remote)
          path(`${at}.build.dockerfile`, build.dockerfile, 'file', { contextOf: contextKey });
        const extra = build.additional_contexts;
        const entries: Array<[string, unknown]> = isObject(extra)
          ? Object.entries(extra)
          : Array.isArray(extra)
            ? extra.map((e, i) => {
                const text = String(e);
                const eq = text.indexOf('=');
                return [eq < 0 ? String(i) : text.slice(0, eq), eq < 0 ? text : text.slice(eq + 1)];
              })
            : [];
        for (const [k, v] of entries) {
          if (!isScalar(v)) continue;
          const values = read(v);
          if (values.every((x) => isRemote(x) || /^(?:service|target):/.test(x))) continue;
          const local = String(v).replace(/^oci-layout:\/\//i, '');
          path(`${at}.build.additional_contexts.${k}`, local, 'context');
        }
        const ssh = build.ssh;
        const sshEntries: Array<[string, unknown]> = isObject(ssh)
          ? Object.entries(ssh)
          : Array.isArray(ssh)
            ? ssh.map((e) => {
                const text = String(e);
                const eq = text.indexOf('=');
                return [eq < 0 ? text : text.slice(0, eq), eq < 0 ? undefined : text.slice(eq + 1)];
              })
            : isScalar(ssh)
              ? [[String(ssh), undefined]]
              : [];
        for (const [id, file] of sshEntries) {
          if (file === undefined || file === null || file === '') out.agents.push(`${at}.build.ssh.${id}`);
          else if (isScalar(file)) path(`${at}.build.ssh.${id}`, file, 'file');
        }
        flag(`${at}.build.privileged`, build.privileged, 'privileged');
        if (nonEmpty(build.entitlements))
          setting(`${at}.build.entitlements`, build.entitlements, 'privileged');
        hostMode(`${at}.build.network`, build.network);
      }
      for (const field of ['env_file', 'label_file'] as const)
        for (const item of pathList(service[field])) path(`${at}.${field}${item.at}`, item.value, 'file');
      const extend = service.extends;
      if (isObject(extend) && isScalar(extend.file)) {
        path(`${at}.extends.file`, extend.file, 'compose');
        const last = out.paths.at(-1);
        if (last) last.brings = { service: String(extend.service ?? name) };
      }
      // Mounts.
      const volumes = Array.isArray(service.volumes) ? service.volumes : [];
      volumes.forEach((volume, i) => {
        const key = `${at}.volumes[${i}]`;
        if (isScalar(volume)) {
          for (const text of read(volume)) {
            const parts = text.split(':');
            const source = parts.length > 1 ? (parts[0] ?? '') : '';
            if (/^[./~]/.test(source))
              out.paths.push({
                key,
                written: String(volume),
                values: [source],
                base: projectDir,
                use: 'bind',
              });
          }
        } else if (isObject(volume) && isScalar(volume.source)) {
          const type = isScalar(volume.type) ? read(volume.type).join('') : 'volume';
          if (type === 'bind') path(`${key}.source`, volume.source, 'bind');
        }
      });
      // Sharing the host.
      flag(`${at}.privileged`, service.privileged, 'privileged');
      const securityOpt = Array.isArray(service.security_opt) ? service.security_opt : [];
      securityOpt.forEach((opt, i) => {
        if (isScalar(opt) && read(opt).some((v) => UNCONFINED.test(v.trim())))
          setting(`${at}.security_opt[${i}]`, opt, 'privileged');
      });
      for (const field of ['pid', 'ipc', 'uts', 'userns_mode', 'cgroup', 'network_mode'] as const)
        hostMode(`${at}.${field}`, service[field]);
      for (const field of ['devices', 'device_cgroup_rules', 'gpus'] as const)
        if (nonEmpty(service[field])) setting(`${at}.${field}`, service[field], 'devices');
      const reservations = (service.deploy as Model | undefined)?.resources as Model | undefined;
      const devices = isObject(reservations?.reservations) ? reservations.reservations.devices : undefined;
      if (nonEmpty(devices)) setting(`${at}.deploy.resources.reservations.devices`, devices, 'devices');
      if (nonEmpty(service.cap_add)) setting(`${at}.cap_add`, service.cap_add, 'capAdd');
      if (nonEmpty(service.sysctls)) setting(`${at}.sysctls`, service.sysctls, 'sysctls');
    });
  }
  // An `extends` brings its service alone: the rest of that file is not part of the project.
  if (options.service !== undefined) return out;

  for (const top of ['secrets', 'configs'] as const) {
    const section = isObject(model[top]) ? model[top] : {};
    for (const [name, item] of Object.entries(section))
      guard(`${top}.${name}`, () => {
        if (isObject(item) && isScalar(item.file)) path(`${top}.${name}.file`, item.file, 'file');
      });
  }
  const namedVolumes = isObject(model.volumes) ? model.volumes : {};
  for (const [name, volume] of Object.entries(namedVolumes))
    guard(`volumes.${name}`, () => {
      const opts = isObject(volume) ? volume.driver_opts : undefined;
      // The local driver mounts `device` (a host folder with `o: bind`, or a disk).
      if (isObject(opts) && isScalar(opts.device) && !String(opts.device).startsWith(':'))
        path(`volumes.${name}.driver_opts.device`, opts.device, 'bind');
    });
  const networks = isObject(model.networks) ? model.networks : {};
  for (const [name, network] of Object.entries(networks))
    guard(`networks.${name}`, () => {
      if (!isObject(network)) return;
      const external = isObject(network.external) ? network.external.name : network.external;
      const named = isScalar(network.name)
        ? network.name
        : isScalar(external) && external !== true
          ? external
          : name;
      if (isSet(network.external) || isObject(network.external))
        if (read(named).some((v) => v === 'host')) setting(`networks.${name}`, named, 'hostNamespaces');
      if (isScalar(network.driver) && read(network.driver).some((v) => v === 'host'))
        setting(`networks.${name}.driver`, network.driver, 'hostNamespaces');
    });
  const includes = Array.isArray(model.include)
    ? model.include
    : isScalar(model.include)
      ? [model.include]
      : [];
  for (const [i, entry] of includes.entries())
    guard(`include[${i}]`, () => {
      const key = `include[${i}]`;
      if (isScalar(entry)) {
        path(key, entry, 'compose');
        return;
      }
      if (!isObject(entry)) return;
      const projectDirectory = isScalar(entry.project_directory) ? read(entry.project_directory) : undefined;
      if (isScalar(entry.project_directory))
        path(`${key}.project_directory`, entry.project_directory, 'context');
      const envFiles = pathList(entry.env_file);
      for (const item of envFiles) path(`${key}.env_file${item.at}`, item.value, 'file');
      for (const item of pathList(entry.path)) {
        path(`${key}.path${item.at}`, item.value, 'compose');
        const last = out.paths.at(-1);
        if (last)
          last.brings = {
            ...(projectDirectory ? { projectDirectory } : {}),
            ...(envFiles.length > 0 ? { envFiles: envFiles.flatMap((f) => read(f.value)) } : {}),
          };
      }
    });
  return out;
}
