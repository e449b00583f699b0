import { inflateSync } from 'node:zlib';
import type { DxfDocumentModel } from '../model.js';
import { type ReadDxfOptions, readDxf } from './read.js';
import { EMBEDDED_TEMPLATES } from './templates/embedded.js';

/** The built-in templates of `new` (templates/metric.dxf and templates/imperial.dxf, made with ezdxf). */
type TemplateName = keyof typeof EMBEDDED_TEMPLATES;

const cache = new Map<TemplateName, string>();

/** The DXF text of a built-in template. */
export function templateDxf(name: TemplateName): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = inflateSync(Buffer.from(EMBEDDED_TEMPLATES[name], 'base64')).toString('utf8');
    cache.set(name, text);
  }
  return text;
}

/** A new drawing from a built-in template (metric when none is named), with its own file identity. */
export function blankDocument(name: TemplateName = 'metric', options: ReadDxfOptions = {}): DxfDocumentModel {
  return readDxf(templateDxf(name), { ...options, newIdentity: true });
}
