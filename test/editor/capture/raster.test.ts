/**
 * The rasteriser's worker and a cancel: a capture cancelled while resvg draws it answers `cancelled`
 * at once, whether it was the only job (the worker is stopped) or others wait behind it (they are
 * drawn), and the next capture is drawn by a worker again.
 */
import { Resvg } from '@resvg/resvg-js';
import { describe, expect, it } from 'vitest';
import { rasterize } from '../../../src/editor/capture/raster.js';
import { EditorError } from '../../../src/editor/errors.js';
import { decodePng } from './pixels.js';

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

/** Text in the capture's font list, with characters the first face found lacks (𝒜: only DejaVu Math here; 𝛀: DejaVu Serif), drawn by fallback. */
const texts = () =>
  utf8(
    '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="120"><rect width="320" height="120" fill="#1e2227"/>' +
      '<g font-family="Helvetica, Arial, Liberation Sans, DejaVu Sans, Noto Sans, FreeSans, sans-serif" fill="#fff">' +
      '<text x="8" y="40" font-size="28">Ø 80 ±0,5 94°</text><text x="8" y="90" font-size="24">∑∫√ ℝ ∞ ≠ ⌀ 𝔸 𝒜 𝛀</text></g></svg>',
  );

describe('rasterize with text', () => {
  it("draws text with the fonts resvg's own system lookup finds: the same pixels", async () => {
    const own = new Resvg(Buffer.from(texts()), {
      font: { loadSystemFonts: true },
      logLevel: 'off',
    }).render();
    // Twice: the font list is made by the first capture with text and kept for the next.
    for (const round of [1, 2]) {
      const drawn = await rasterize(texts(), true);
      const picture = decodePng(drawn.png);
      expect([picture.width, picture.height], `round ${round}`).toEqual([own.width, own.height]);
      expect(Buffer.compare(picture.data, Buffer.from(own.pixels)), `round ${round}: pixels`).toBe(0);
    }
    // And the text is drawn: white pixels on the dark background.
    const lit = decodePng((await rasterize(texts(), true)).png).data.filter((_, i) => i % 4 === 0 && _ > 200);
    expect(lit.length).toBeGreaterThan(500);
  });
});

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
