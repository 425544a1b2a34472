import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfigFile, resolveOptions } from '../../devhub/config';
import { DevHubConfigError } from '../../devhub';

describe('devhub/config', () => {
  it('fills every default from the schema', () => {
    const c = resolveOptions({});
    assert.deepEqual([c.host, c.port, c.path], ['127.0.0.1', 0, '/ws']);
    assert.equal(c.settings.handshake_timeout_ms, 10_000);
    assert.equal(c.settings.ack_silence_kick_ms, 120_000);
    assert.equal(c.settings.unacked_window_max, 4096);
    assert.equal(c.settings.replay_throttle, 3500);
    assert.equal(c.settings.max_frame_bytes, 8 * 1024 * 1024);
    assert.equal(c.settings.max_connect_frame_bytes, 64 * 1024);
    assert.equal(c.settings.max_produce_bytes, 1_000_000);
    assert.equal(c.settings.max_message_id_bytes, 512);
    assert.equal(c.settings.presence_max_subscriptions, 16);
    assert.deepEqual(c.settings.reliability, { v1: true, v2: true });
    assert.equal(c.settings.stream_merged, false);
    assert.equal(c.media.max_size_bytes, 100 * 1024 * 1024);
    assert.equal(c.media.storage, 'memory');
    assert.equal(c.media.port, undefined);
    assert.equal(c.admin.host, '127.0.0.1');
  });

  it('does not modify the options it is given', () => {
    const options = { settings: {} };
    resolveOptions(options);
    assert.deepEqual(options, { settings: {} });
  });

  it('reports every error by path at once', () => {
    assert.throws(
      () => resolveOptions({ port: -1, path: 'ws', settings: { stream_merged: 'yes' as never, bogus: 1 } as never, admin: { host: '0.0.0.0' } }),
      (err: unknown) => {
        assert.ok(err instanceof DevHubConfigError);
        assert.equal(err.code, 'DEVHUB_CONFIG_INVALID');
        const errors = err.details!.errors as string[];
        for (const p of ['port:', 'path:', 'settings.stream_merged:', 'settings.bogus: is not a known setting', 'admin.host:']) assert.ok(errors.some((e) => e.startsWith(p)), `${p} in ${errors.join(' | ')}`);
        return true;
      },
    );
  });

  it('refuses a token shared by two users and a chat member nobody configured, without quoting the token', () => {
    assert.throws(
      () => resolveOptions({ users: [{ id: 'usr_a', token: 'secret-1' }, { id: 'usr_b', tokens: ['secret-1'] }], chats: [{ id: 'c', members: ['usr_a', 'usr_x'] }] }),
      (err: unknown) => {
        const message = (err as Error).message;
        assert.match(message, /shares a token with user 'usr_a'/);
        assert.match(message, /'usr_x' is not a configured user/);
        assert.equal(message.includes('secret-1'), false);
        return true;
      },
    );
  });

  it('loads YAML and JSON files, and names the file on failure', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'devhub-config-'));
    try {
      fs.writeFileSync(path.join(dir, 'a.yaml'), 'port: 8080\nusers:\n  - id: usr_a\n    token: t\n');
      fs.writeFileSync(path.join(dir, 'b.json'), JSON.stringify({ path: '/hub' }));
      fs.writeFileSync(path.join(dir, 'c.yaml'), '- just\n- a list\n');
      assert.equal(resolveOptions(loadConfigFile(path.join(dir, 'a.yaml'))).users[0].id, 'usr_a');
      assert.equal(loadConfigFile(path.join(dir, 'b.json')).path, '/hub');
      assert.throws(() => loadConfigFile(path.join(dir, 'c.yaml')), /must hold a mapping/);
      assert.throws(() => loadConfigFile(path.join(dir, 'missing.yaml')), { code: 'DEVHUB_CONFIG_UNREADABLE' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
