/** src/stacks/compose/check.ts: where a compose message points in the text (pure). */
import { describe, expect, it } from 'vitest';
import { messagePosition } from '../../src/stacks/compose/check.js';

const text = 'services:\n  web:\n    image: x\n    restart: false\n  db:\n    image: y\n';

describe('messagePosition', () => {
  it("finds the key a path of v2's or v1's message names", () => {
    expect(messagePosition(text, 'validating compose.yaml: services.web.restart must be a string')).toEqual({
      line: 4,
      column: 5,
    });
    expect(
      messagePosition(
        text,
        "The Compose file 'compose.yaml' is invalid because:\nservices.web.restart contains an invalid type",
      ),
    ).toEqual({ line: 4, column: 5 });
  });
  it('the deepest key of the path that exists; a YAML line as compose says it; none otherwise', () => {
    expect(messagePosition(text, 'services.db.ports.0 is invalid')).toEqual({ line: 5, column: 3 });
    expect(messagePosition(text, 'yaml: line 7: mapping values are not allowed')).toEqual({
      line: 7,
      column: 1,
    });
    expect(messagePosition(text, 'env file /x/app.env not found')).toBeUndefined();
    expect(messagePosition(text, 'services.nothing.here')).toBeUndefined();
  });
});
