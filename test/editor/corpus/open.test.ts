/**
 * Every real DXF file of the corpus directory opens; a query lists the entities ezdxf reads there, by DXF
 * type and by layer; every entity has `bounds`; and what `save` writes reads in ezdxf with the same counts
 * and no audit errors. One test per file and check, so a failure names both.
 * The ezdxf side of the first two is the committed facts.json; the saved files are read by one run of
 * scripts/dxf-corpus-facts.py for the whole corpus (skipped, with the reason printed, without python3-ezdxf).
 */
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import {
  ezdxfUnavailable,
  type Harness,
  needEzdxf,
  type Reply,
  scratchDir,
  startHarness,
} from '../dispatcher/helpers.js';
import {
  corpusFiles,
  corpusPath,
  ezdxfVersion,
  type FileFacts,
  factsOf,
  readable,
  readWithEzdxf,
  type SavedView,
  withoutFacts,
} from './corpus.js';

/**
 * Files where ezdxf 0.18 (Debian's) reads something other than what the file holds, with what the file
 * does hold; every other file must agree with ezdxf exactly.
 */
const EZDXF_DIFFERS: Readonly<
  Record<string, { why: string; expect: Partial<Pick<FileFacts, 'by_type' | 'by_layer'>> }>
> = {
  'dxfparser-splines.dxf': {
    why: 'ezdxf reads the SPLINEs of this header-less file as R12 entities and loses their layer (8 PLOTLINES, after the AcDbEntity marker)',
    expect: { by_layer: { PLOTLINES: 2 } },
  },
  'dxfparser-mleader.dxf': {
    why: 'the same for the MULTILEADERs of this ENTITIES-only file (8 Default)',
    expect: { by_layer: { Default: 3 } },
  },
};

/** Files ezdxf 0.18 cannot read at all (facts.json holds its error), with the reason. */
const UNREADABLE_BY_EZDXF: Readonly<Record<string, string>> = {
  'dxfparser-tables.dxf': 'a TABLES section only; ezdxf fails on a table entry it reads without a name',
  'ezdxf-r12_blocks_with_no_names.dxf': 'BLOCKs without a name (2) — the case the file was made for',
  'ixmilia-i.r9.dxf': 'table records with handle 0, which ezdxf refuses',
  'ixmilia-i.r10.dxf': 'table records with handle 0, which ezdxf refuses',
  'ixmilia-i.r11.dxf': 'table records with handle 0, which ezdxf refuses',
  'ixmilia-i.r12.dxf': 'table records with handle 0, which ezdxf refuses',
};

/**
 * Saved files ezdxf 0.18 refuses today, with the start of its error and why: it reads them in recover
 * mode only, or (`unreadable`) not at all. The test fails when the error changes or goes, so the list
 * cannot go stale.
 */
const TABLE_MARKER =
  'its table records hold only the AcDbSymbolTableRecord marker; they are saved so in an R2000 file, without the AcDb...TableRecord marker ezdxf wants before the name';
const SAVED_EZDXF_FAULTS: Readonly<Record<string, { error: string; why: string; unreadable?: true }>> = {
  'ixmilia-i.r9.dxf': { error: 'DXFTypeError: name has to be a string', why: TABLE_MARKER, unreadable: true },
  'ixmilia-i.r10.dxf': {
    error: 'DXFTypeError: name has to be a string',
    why: TABLE_MARKER,
    unreadable: true,
  },
  'ixmilia-i.r11.dxf': {
    error: 'DXFTypeError: name has to be a string',
    why: TABLE_MARKER,
    unreadable: true,
  },
  'ixmilia-i.r12.dxf': {
    error: 'DXFTypeError: name has to be a string',
    why: TABLE_MARKER,
    unreadable: true,
  },
  'ezdxf-ASCII_R12.dxf': {
    error: 'DXFValueError: Invalid value \\U+039B',
    why: 'the R12 layer name is saved as \\U+ escapes in an R2000 file, which ezdxf does not decode for the SEQEND it adds to the INSERT',
  },
};

/**
 * Files chronicle refuses today, with the code and the work that will open them; the test fails as soon
 * as one opens, so the list cannot go stale.
 */
const EXPECTED_REFUSALS: Readonly<Record<string, { code: string; until: string }>> = {};

const TYPE_NAMES: Record<string, string> = {
  Line: 'LINE',
  Circle: 'CIRCLE',
  Arc: 'ARC',
  Ellipse: 'ELLIPSE',
  Text: 'TEXT',
  MText: 'MTEXT',
  Point: 'POINT',
  LwPolyline: 'LWPOLYLINE',
  Insert: 'INSERT',
  Image: 'IMAGE',
  Solid: 'SOLID',
  Trace: 'TRACE',
  Face3d: '3DFACE',
  XLine: 'XLINE',
  Ray: 'RAY',
  Polyline: 'POLYLINE',
  Spline: 'SPLINE',
};

interface Listed {
  handle: string;
  type: string;
  dxf_type?: string;
  layer: string;
  tags?: Array<{ code: number; value: string }>;
}

/** How many entities each key names, as ezdxf's Counter does. */
function countBy(items: Listed[], key: (item: Listed) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) {
    const k = key(item);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

const dxfType = (e: Listed) => (e.type === 'Raw' ? String(e.dxf_type) : (TYPE_NAMES[e.type] ?? e.type));

let h: Harness;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
const saved = new Map<string, { path: string; counts: Pick<FileFacts, 'by_type' | 'by_layer'> }>();
let savedViews: Record<string, SavedView> = {};

beforeAll(async () => {
  h = await startHarness();
  scratch = await scratchDir();
});
afterAll(async () => {
  await h.close();
  await scratch.remove();
});

async function listAll(documentId: number): Promise<Listed[]> {
  const out: Listed[] = [];
  for (let offset = 0; ; offset += 10_000) {
    const answer: Reply = await h.raw({
      protocol: 1,
      op: 'query',
      document_id: documentId,
      detail: 'full',
      limit: 10_000,
      offset,
    });
    expect(answer.ok, answer.error).toBe(true);
    const page = answer.entities as Listed[];
    out.push(...page);
    if (page.length < 10_000) return out;
  }
}

function sameCounts(name: string, facts: Pick<FileFacts, 'by_type' | 'by_layer'>, listed: Listed[]): void {
  expect(countBy(listed, dxfType), `${name}: entities by DXF type`).toEqual(facts.by_type);
  expect(
    countBy(listed, (e) => e.layer),
    `${name}: entities by layer`,
  ).toEqual(facts.by_layer);
}

/** XLINE and RAY have no end, so no bounds (as in ezdxf); every other entity has them. */
const UNBOUNDED_TYPES = new Set(['XLINE', 'RAY']);

/** A layout's own VIEWPORT (69 = 1) is the sheet, not a frame on it: it bounds nothing. */
const isSheetViewport = (e: Listed) =>
  dxfType(e) === 'VIEWPORT' && (e.tags ?? []).some((t) => t.code === 69 && Number(t.value) === 1);

/** What one file's checks share: the document opened once, its listing at detail=full. */
interface Opened {
  doc: number;
  listed: Array<Listed & { bounds: { min: number[]; max: number[] } | null }>;
}

describe('the real DXF corpus', () => {
  it('holds at least 50 files', () => {
    expect(corpusFiles.length).toBeGreaterThanOrEqual(50);
  });

  it('has ezdxf facts for every file (else run scripts/dxf-corpus-facts.py)', () => {
    expect(withoutFacts).toEqual([]);
  });

  for (const name of corpusFiles) {
    describe(name, () => {
      const facts = factsOf(name);
      const refusal = EXPECTED_REFUSALS[name];
      let opened: Opened | undefined;
      /** The file opened and listed, once for its checks; fails the check that asks first when it cannot. */
      async function open(): Promise<Opened> {
        if (opened) return opened;
        const answer = await h.call('open', { path: corpusPath(name) });
        expect(answer.ok, `${name}: ${answer.code}: ${answer.error}`).toBe(true);
        const doc = answer.document_id as number;
        opened = { doc, listed: (await listAll(doc)) as Opened['listed'] };
        return opened;
      }
      afterAll(async () => {
        if (opened) await h.ok('close', { document_id: opened.doc, discard: true });
      });

      if (refusal) {
        it(`is refused ${refusal.code} until ${refusal.until}`, async () => {
          const answer = await h.call('open', { path: corpusPath(name) });
          expect(answer.ok, `${name} opened: update EXPECTED_REFUSALS`).toBe(false);
          expect(answer.code).toBe(refusal.code);
        });
        return;
      }

      it('opens', async () => {
        await open();
      });

      const what =
        facts === undefined
          ? 'no facts yet'
          : readable(facts)
            ? `${facts.listed} entities`
            : 'ezdxf cannot read it';
      it(`lists what ezdxf lists, by type and by layer (${what})`, async () => {
        expect(facts, `${name}: facts.json lacks it; run scripts/dxf-corpus-facts.py`).toBeDefined();
        const { listed } = await open();
        if (facts && readable(facts)) {
          const expected = { ...facts, ...EZDXF_DIFFERS[name]?.expect };
          expect(listed.length, `${name}: entities listed`).toBe(
            Object.values(expected.by_type).reduce((a, b) => a + b, 0),
          );
          sameCounts(name, expected, listed);
        } else {
          // ezdxf refuses the file itself: the chronicle side still reads every entity section it holds.
          expect(
            UNREADABLE_BY_EZDXF[name],
            `${name}: why ezdxf ${ezdxfVersion} cannot read it`,
          ).toBeDefined();
        }
      });

      it('gives every entity bounds', async () => {
        const { listed } = await open();
        const unbounded = listed
          .filter((e) => !UNBOUNDED_TYPES.has(dxfType(e)) && !isSheetViewport(e))
          .filter((e) => {
            const b = e.bounds;
            return (
              !b ||
              ![...b.min, ...b.max].every(Number.isFinite) ||
              b.min.some((v, i) => v > (b.max[i] as number))
            );
          })
          .map((e) => `${e.handle} ${dxfType(e)}: ${JSON.stringify(e.bounds)}`);
        expect(unbounded, `${name}: entities without bounds`).toEqual([]);
      });

      it('saves', async () => {
        const { doc, listed } = await open();
        const out = scratch.path(`saved-${name}`);
        const answer = await h.call('save', { document_id: doc, path: out });
        expect(answer.ok, `${name}: save: ${answer.code}: ${answer.error}`).toBe(true);
        saved.set(name, { path: out, counts: countsOf(listed) });
      });
    });
  }
});

/**
 * The saved files, read by one run of the facts script for all of them (after every file was saved
 * above): each reads in ezdxf with what was listed, and its audit is clean.
 */
describe('the saved corpus files in ezdxf', () => {
  beforeAll(async () => {
    if (ezdxfUnavailable || saved.size === 0) return;
    savedViews = await readWithEzdxf([...saved.values()].map((s) => s.path));
  });

  for (const name of corpusFiles.filter((n) => !EXPECTED_REFUSALS[n])) {
    it(`${name}: the saved file reads with what was listed and audits clean`, (ctx: TestContext) => {
      needEzdxf(ctx);
      const entry = saved.get(name);
      expect(entry, `${name} was saved by its test above`).toBeDefined();
      const { path, counts } = entry as { path: string; counts: Pick<FileFacts, 'by_type' | 'by_layer'> };
      const view = savedViews[path] as SavedView;
      const fault = SAVED_EZDXF_FAULTS[name];
      if (fault?.unreadable) {
        expect(view.error?.startsWith(fault.error), `${name}: ${view.error}: update SAVED_EZDXF_FAULTS`).toBe(
          true,
        );
        return;
      }
      expect(view.error, `${name}: ezdxf reads the saved file`).toBeUndefined();
      if (fault) {
        // ezdxf reads it in recover mode only; what its plain reader refuses is the known fault.
        const refused = view.recover_fixes?.[0] ?? '';
        expect(
          refused.startsWith(`readfile: ${fault.error}`),
          `${name}: ${refused}: update SAVED_EZDXF_FAULTS`,
        ).toBe(true);
      } else {
        expect(view.read, `${name}: ezdxf reads the saved file without recover mode`).toBe('readfile');
      }
      expect(view.audit_errors, `${name}: audit of the saved file`).toEqual([]);
      expect(view.by_type, `${name} (saved): entities by DXF type`).toEqual(counts.by_type);
      expect(view.by_layer, `${name} (saved): entities by layer`).toEqual(counts.by_layer);
    });
  }
});

function countsOf(listed: Listed[]): Pick<FileFacts, 'by_type' | 'by_layer'> {
  return { by_type: countBy(listed, dxfType), by_layer: countBy(listed, (e) => e.layer) };
}
