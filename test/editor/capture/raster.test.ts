/**
 * The rasteriser's worker and a cancel: a capture cancelled while resvg draws it answers `cancelled`
 * at once, whether it was the only job (the worker is stopped) or others wait behind it (they are
 * drawn), and the next capture is drawn by a worker again.
 */
import { describe, expect, it } from 'vitest';
import { rasterize } from '../../../src/editor/capture/raster.js';
import { EditorError } from '../../../src/editor/errors.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

/** 100,000 texts, each large enough to be laid out: resvg parses it for tens of seconds. */
function heavySvg(): Uint8Array {
  const texts: string[] = [];
  for (let i = 0; i < 100_000; i++)
    texts.push(
      `<text x="${(i % 316) * 13}" y="${Math.floor(i / 316) * 13 + 10}" font-size="10">T${i}</text>`,
    );
  return utf8(
    `<svg xmlns="http://www.w3.org/2000/svg" width="4096" height="4096"><g fill="#fff">${texts.join('')}</g></svg>`,
  );
}

const small = () =>
  utf8(
    '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="4"><rect width="8" height="4" fill="#f00"/></svg>',
  );

async function refusal(work: Promise<unknown>): Promise<EditorError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof EditorError) return error;
    throw error;
  }
  throw new Error('expected the raster job to be refused');
}

describe('rasterize and a cancel', () => {
  it('answers cancelled once aborted, though resvg is still drawing; the next job is drawn', async () => {
    const abort = new AbortController();
    const heavy = rasterize(heavySvg(), true, abort.signal);
    abort.abort('cancel c-1');
    const refused = await refusal(heavy);
    expect(refused.code).toBe('cancelled');
    expect(refused.message).toBe('the capture was cancelled (cancel c-1)');
    const next = await rasterize(small(), false);
    expect([next.width, next.height]).toEqual([8, 4]);
  });

  it('drops a cancelled job with another waiting behind it: that one is drawn', async () => {
    const abort = new AbortController();
    const order: string[] = [];
    const first = rasterize(small(), false, abort.signal).then(
      () => order.push('first drawn'),
      (error: EditorError) => order.push(`first ${error.code}`),
    );
    const second = rasterize(small(), false).then((raster) => {
      order.push('second drawn');
      return raster;
    });
    abort.abort('cancel');
    await first;
    const drawn = await second;
    expect(order).toEqual(['first cancelled', 'second drawn']);
    expect([drawn.width, drawn.height]).toEqual([8, 4]);
  });

  it('refuses a job whose signal is aborted already, sending nothing to the worker', async () => {
    const abort = new AbortController();
    abort.abort('cancel');
    expect((await refusal(rasterize(small(), false, abort.signal))).code).toBe('cancelled');
  });
});
