/** What a service's image update row says (src/stacks/engine/image-updates.ts `updateOf`): pure. */
import { describe, expect, it } from 'vitest';
import { type ServiceImage, updateOf } from '../../../src/stacks/engine/image-updates.js';

const image = (over: Partial<ServiceImage> = {}): ServiceImage => ({
  service: 'web',
  container: 'shop-web-1',
  image: 'reg:5000/team/app:1',
  runningDigest: 'sha256:aaa',
  ...over,
});
const at = '2026-12-02T07:00:00.000Z';

describe('updateOf', () => {
  it('an update is available when the registry serves another digest than the one running', () => {
    expect(updateOf(image(), { digest: 'sha256:bbb', error: null, checkedAt: at })).toMatchObject({
      latestDigest: 'sha256:bbb',
      updateAvailable: true,
      reason: null,
      checkedAt: at,
    });
    expect(updateOf(image(), { digest: 'sha256:aaa', error: null, checkedAt: at })).toMatchObject({
      updateAvailable: false,
      reason: null,
    });
  });

  it('says why it does not know: never checked, the registry’s error, a digest reference, a local image', () => {
    expect(updateOf(image(), undefined)).toMatchObject({ updateAvailable: false, reason: 'Not checked yet' });
    expect(
      updateOf(image(), { digest: null, error: 'The registry could not be asked: x', checkedAt: at }).reason,
    ).toBe('The registry could not be asked: x');
    expect(
      updateOf(image({ image: 'reg:5000/team/app@sha256:aaa' }), {
        digest: 'sha256:b',
        error: null,
        checkedAt: at,
      }),
    ).toMatchObject({
      updateAvailable: false,
      reason: 'The service names its image by digest: it does not change',
    });
    expect(
      updateOf(image({ runningDigest: null }), { digest: 'sha256:b', error: null, checkedAt: at }),
    ).toMatchObject({
      updateAvailable: false,
      reason: 'The image was built or imported here: no registry gave it',
    });
  });
});
