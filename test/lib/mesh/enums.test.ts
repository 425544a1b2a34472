import { strict as assert } from 'node:assert';
import {
  CONTENT_TYPES,
  PRIORITIES,
  contentTypeCode,
  contentTypeFromCode,
  contentTypeFromName,
  priorityCode,
  priorityFromCode,
  priorityFromName,
} from '../../../lib/mesh/enums';

describe('lib/mesh/enums', () => {
  it('content type numbers are the frozen table', () => {
    assert.deepEqual(
      [...CONTENT_TYPES],
      ['text', 'image', 'video', 'audio', 'voice_note', 'video_note', 'file', 'file_chunk', 'poll'],
    );
    CONTENT_TYPES.forEach((name, code) => {
      assert.equal(contentTypeCode(name), code);
      assert.equal(contentTypeFromCode(code), name);
    });
    assert.ok(Object.isFrozen(CONTENT_TYPES));
  });

  it('an unknown content type number or string degrades to file', () => {
    for (const code of [9, 200, 255]) assert.equal(contentTypeFromCode(code), 'file');
    for (const name of ['', 'Text', 'hologram', 'voiceNote']) assert.equal(contentTypeFromName(name), 'file');
  });

  it('priority numbers are the frozen table; an unknown number degrades to medium', () => {
    assert.deepEqual([...PRIORITIES], ['low', 'medium', 'high', 'critical']);
    PRIORITIES.forEach((name, code) => {
      assert.equal(priorityCode(name), code);
      assert.equal(priorityFromCode(code), name);
    });
    assert.equal(priorityFromCode(4), 'medium');
    assert.equal(priorityFromCode(200), 'medium');
  });

  it('priority names: lowercase and capitalized only, no fallback', () => {
    assert.equal(priorityFromName('High'), 'high');
    assert.equal(priorityFromName('critical'), 'critical');
    assert.equal(priorityFromName('HIGH'), undefined);
    assert.equal(priorityFromName('urgent'), undefined);
  });
});
