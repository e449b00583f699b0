import { readFileSync } from 'node:fs';

/** The package version, read once from the package.json above this module (src/ or dist/src/). */
export const version: string = (() => {
  for (const up of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'chronicle' && pkg.version) return pkg.version;
    } catch {
      // not at this level; try the next one up
    }
  }
  return '0.0.0';
})();
