import assert from 'node:assert/strict';
import Ajv from 'ajv';
import { RADIO_CONFIG_SCHEMA, RADIO_SETTINGS, resolveRadioConfig, type RadioConfig } from '../../../gateway/radios/radio-config';
import { loadConfig } from '../../../gateway/load-config';
import { RadioError } from '../../../gateway/radios/radio';

function problem(config: unknown): string | undefined {
  try {
    resolveRadioConfig(config as RadioConfig, 'radios[0]');
  } catch (err) {
    assert.ok(err instanceof RadioError && err.code === 'BAD_CONFIG', String(err));
    return err.details?.path as string;
  }
  return undefined;
}

describe('gateway/radios radio-config', () => {
  it('fills the documented defaults', () => {
    assert.deepEqual(resolveRadioConfig({ id: 'ble0', kind: 'ble' }), {
      id: 'ble0',
      kind: 'ble',
      queueLimit: 64,
      queueByteLimit: 4 * 1_048_576,
      reconnect: { initialMs: 1000, maxMs: 60_000 },
      adapter: 0,
      controller: { kind: 'hci', index: 0, channel: 'raw', label: 'hci0' },
      baudRate: 1_000_000,
      flowControl: true,
      serviceUuid: '6E400001-B5A3-F393-E0A9-E50E24DCCA9E',
      maxPeers: 4,
      connectTimeoutMs: 10_000,
      handshakeTimeoutMs: 15_000,
      minWriteGapMs: 20,
      writeGateMs: 30,
      requireIdentity: true,
      allowPeers: [],
      admission: 'any',
      scanRestartMs: 5_000,
      discoveryWindowMs: 250,
      peripheral: { enabled: true, adapter: 0, controller: { kind: 'hci', index: 0, channel: 'raw', label: 'hci0' }, sharedAdapter: true, maxClients: 4, notify: true },
    });
    const serial = resolveRadioConfig({ id: 'usb0', kind: 'serial', path: '/dev/ttyACM0' });
    assert.deepEqual(serial.reconnect, { initialMs: 500, maxMs: 30_000 });
    assert.equal(serial.kind === 'serial' && serial.baudRate, 115_200);
    const sim = resolveRadioConfig({ id: 'sim0', kind: 'simulated', peers: [{ id: 'a' }] });
    assert.deepEqual(sim.kind === 'simulated' && sim.peers, [{ id: 'a', wireVersions: [1], autoAck: true }]);
  });

  it('reads adapters as hciN or a number, and allow_peers ids without colons', () => {
    const r = resolveRadioConfig({ id: 'ble1', kind: 'ble', adapter: 'hci1', allow_peers: ['AA:BB:CC:DD:EE:FF', 'off1qyqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqn8antf'] });
    assert.ok(r.kind === 'ble');
    assert.equal(r.adapter, 1);
    assert.deepEqual(r.allowPeers, ['aabbccddeeff', 'off1qyqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqn8antf']);
    assert.equal((resolveRadioConfig({ id: 'ble1', kind: 'ble', adapter: 2 }) as { adapter: number }).adapter, 2);
  });

  it('admits listed peers only when allow_peers is set or admission says listed, and refuses any with a list', () => {
    const admission = (c: Record<string, unknown>): unknown => (resolveRadioConfig({ id: 'ble0', kind: 'ble', ...c }) as { admission: string }).admission;
    assert.equal(admission({}), 'any');
    assert.equal(admission({ allow_peers: ['aabbccddeeff'] }), 'listed');
    assert.equal(admission({ admission: 'listed' }), 'listed');
    assert.throws(() => admission({ admission: 'any', allow_peers: ['aabbccddeeff'] }), (err: RadioError) => err.code === 'BAD_CONFIG' && /allow_peers would be ignored/.test(err.message));
    assert.throws(() => admission({ admission: 'some' }), (err: RadioError) => err.code === 'BAD_CONFIG' && /any or listed/.test(err.message));
  });

  it('reads a UART controller (uart:<path>, baud_rate, flow_control), the user channel for hciN, and peripheral.adapter in any form', () => {
    const r = resolveRadioConfig({ id: 'ble0', kind: 'ble', adapter: 'uart:/dev/pts/7', baud_rate: 115_200, flow_control: false });
    assert.ok(r.kind === 'ble');
    assert.deepEqual(r.controller, { kind: 'uart', path: '/dev/pts/7', baudRate: 115_200, flowControl: false, label: 'uart:/dev/pts/7' });
    assert.equal(r.adapter, -1);
    assert.deepEqual(r.peripheral.controller, r.controller, 'the GATT server shares the UART controller by default');
    assert.equal(r.peripheral.sharedAdapter, true);
    const d = resolveRadioConfig({ id: 'ble0', kind: 'ble', adapter: 'uart:/dev/ttyACM0' });
    assert.ok(d.kind === 'ble' && d.controller.kind === 'uart');
    assert.deepEqual([d.controller.baudRate, d.controller.flowControl], [1_000_000, true]);
    const user = resolveRadioConfig({ id: 'ble0', kind: 'ble', adapter: 'hci1', hci_channel: 'user', peripheral: { adapter: 'uart:/dev/ttyUSB0' } });
    assert.ok(user.kind === 'ble');
    assert.deepEqual(user.controller, { kind: 'hci', index: 1, channel: 'user', label: 'hci1' });
    assert.equal(user.peripheral.controller.label, 'uart:/dev/ttyUSB0');
    assert.equal(user.peripheral.sharedAdapter, false);
    assert.equal(problem({ id: 'x', kind: 'ble', adapter: 'uart:dev/tty' }), 'radios[0].adapter');
    assert.equal(problem({ id: 'x', kind: 'ble', hci_channel: 'kernel' }), 'radios[0].hci_channel');
  });

  it('names the offending setting by its path', () => {
    assert.equal(problem({ id: 'Bad Id', kind: 'ble' }), 'radios[0].id');
    assert.equal(problem({ id: 'x', kind: 'radio' }), 'radios[0].kind');
    assert.equal(problem({ id: 'x', kind: 'ble', adapter: 'usb0' }), 'radios[0].adapter');
    assert.equal(problem({ id: 'x', kind: 'ble', max_peers: 0 }), 'radios[0].max_peers');
    assert.equal(problem({ id: 'x', kind: 'ble', reconnect: { initial_ms: 5000, max_ms: 100 } }), 'radios[0].reconnect.max_ms');
    assert.equal(problem({ id: 'x', kind: 'ble', require_identity: 'yes' }), 'radios[0].require_identity');
    assert.equal(problem({ id: 'x', kind: 'serial' }), 'radios[0].path');
    assert.equal(problem({ id: 'x', kind: 'serial', match: { colour: 'red' } }), 'radios[0].match.colour');
    assert.equal(problem({ id: 'x', kind: 'serial', path: '/dev/x', max_frame_bytes: 2_000_000 }), 'radios[0].max_frame_bytes');
    assert.equal(problem({ id: 'x', kind: 'simulated', peers: [{ id: 'a' }, { id: 'a' }] }), 'radios[0].peers[1].id');
    assert.equal(problem({ id: 'x', kind: 'simulated', peers: [{ id: 'a', wire_versions: [300] }] }), 'radios[0].peers[0].wire_versions');
    assert.equal(problem({ id: 'x', kind: 'simulated', peers: [{ id: 'a', talk: {} }] }), 'radios[0].peers[0].talk.every_ms');
    assert.equal(problem(null), 'radios[0]');
  });

  it('reads the peripheral settings: its own adapter, a name that fits a scan response, client limits', () => {
    const r = resolveRadioConfig({ id: 'ble0', kind: 'ble', adapter: 'hci0', peripheral: { adapter: 'hci1', advertise_name: 'Attic', max_clients: 2, notify: false } });
    assert.ok(r.kind === 'ble');
    assert.deepEqual(r.peripheral, { enabled: true, adapter: 1, controller: { kind: 'hci', index: 1, channel: 'raw', label: 'hci1' }, sharedAdapter: false, maxClients: 2, notify: false, advertiseName: 'Attic' });
    const off = resolveRadioConfig({ id: 'ble0', kind: 'ble', adapter: 2, peripheral: { enabled: false } });
    assert.ok(off.kind === 'ble');
    assert.deepEqual([off.peripheral.enabled, off.peripheral.adapter, off.peripheral.sharedAdapter], [false, 2, true]);
    assert.equal(problem({ id: 'x', kind: 'ble', peripheral: { advertise_name: 'é'.repeat(15) } }), 'radios[0].peripheral.advertise_name', '30 UTF-8 bytes');
    assert.equal(problem({ id: 'x', kind: 'ble', peripheral: { advertise_name: '' } }), 'radios[0].peripheral.advertise_name');
    assert.equal(problem({ id: 'x', kind: 'ble', peripheral: { adapter: 'usb1' } }), 'radios[0].peripheral.adapter');
    assert.equal(problem({ id: 'x', kind: 'ble', peripheral: { max_clients: 0 } }), 'radios[0].peripheral.max_clients');
    assert.equal(problem({ id: 'x', kind: 'ble', peripheral: { enabled: 'yes' } }), 'radios[0].peripheral.enabled');
    assert.equal(problem({ id: 'x', kind: 'ble', peripheral: [] }), 'radios[0].peripheral');
  });

  it('has a JSON schema that agrees with the resolver on good and bad entries', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(RADIO_CONFIG_SCHEMA);
    const good: unknown[] = [
      { id: 'ble0', kind: 'ble', adapter: 'hci0', allow_peers: ['aabbccddeeff'] },
      { id: 'ble1', kind: 'ble', peripheral: { enabled: true, advertise_name: 'Attic', adapter: 'hci1', max_clients: 2, notify: false } },
      { id: 'usb0', kind: 'serial', match: { vendor_id: '2fe3' } },
      { id: 'sim0', kind: 'simulated', peers: [{ id: 'a', talk: { every_ms: 1000 } }] },
    ];
    const bad: unknown[] = [
      { id: 'ble0', kind: 'ble', colour: 'red' },
      { id: 'ble0', kind: 'ble', peripheral: { colour: 'red' } },
      { id: 'usb0', kind: 'serial' },
      { id: 'sim0', kind: 'simulated', peers: [{ id: 'a', talk: {} }] },
      { id: 'Caps', kind: 'ble' },
    ];
    for (const c of good) {
      assert.equal(validate(c), true, JSON.stringify(validate.errors));
      assert.equal(problem(c), undefined);
    }
    for (const c of bad) assert.equal(validate(c), false, JSON.stringify(c));
  });

  describe('one table for schema and resolver', () => {
    type Prop = { type?: string; minimum?: number; maximum?: number; default?: unknown; properties?: Record<string, Prop> };
    const camel = (k: string): string => k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
    const base: Record<string, Record<string, unknown>> = {
      ble: { id: 'r0', kind: 'ble' },
      serial: { id: 'r0', kind: 'serial', path: '/dev/ttyACM0' },
      simulated: { id: 'r0', kind: 'simulated' },
    };
    const branches = (RADIO_CONFIG_SCHEMA.allOf as unknown as Array<{ if: { properties: { kind: { const: string } } }; then: { properties: Record<string, Prop> } }>).map((b) => ({
      kind: b.if.properties.kind.const,
      props: b.then.properties,
    }));
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(RADIO_CONFIG_SCHEMA);

    /** Every integer and boolean setting of a kind, with where it sits (top level or peripheral) and its resolved key. */
    function settings(props: Record<string, Prop>): Array<{ at: string[]; spec: Prop }> {
      const out: Array<{ at: string[]; spec: Prop }> = [];
      for (const [k, spec] of Object.entries(props)) {
        if (spec.type === 'integer' || spec.type === 'boolean') out.push({ at: [k], spec });
        if (k === 'peripheral' || k === 'reconnect') for (const [k2, s2] of Object.entries(spec.properties ?? {})) if (s2.type === 'integer' || s2.type === 'boolean') out.push({ at: [k, k2], spec: s2 });
      }
      return out;
    }
    const withValue = (kind: string, at: string[], value: unknown): Record<string, unknown> =>
      at.length === 1 ? { ...base[kind], [at[0]!]: value } : { ...base[kind], [at[0]!]: { [at[1]!]: value } };
    const resolvedAt = (r: unknown, at: string[]): unknown => at.reduce<unknown>((o, k) => (o as Record<string, unknown>)[camel(k)], r);

    it('the schema and the resolver accept each bound and refuse one past it, at the same path', () => {
      let checked = 0;
      for (const { kind, props } of branches) {
        for (const { at, spec } of settings(props)) {
          if (spec.type !== 'integer') continue;
          assert.ok(spec.minimum !== undefined && spec.maximum !== undefined, `${kind} ${at.join('.')} has both bounds`);
          const path = `radios[0].${at.join('.')}`;
          for (const ok of [spec.minimum, spec.maximum]) {
            const c = withValue(kind, at, ok);
            if (at.join('.') === 'reconnect.max_ms' && ok < 1000) continue; // max_ms ≥ initial_ms is the resolver's cross-check
            assert.equal(validate(c), true, `${kind} ${path}=${ok}: ${JSON.stringify(validate.errors)}`);
            assert.equal(problem(c), undefined, `${kind} ${path}=${ok}`);
          }
          for (const bad of [spec.minimum - 1, spec.maximum + 1]) {
            const c = withValue(kind, at, bad);
            assert.equal(validate(c), false, `${kind} ${path}=${bad} refused by the schema`);
            assert.equal(problem(c), path, `${kind} ${path}=${bad} refused by the resolver`);
          }
          checked += 1;
        }
      }
      assert.ok(checked >= 20, `checked ${checked} integer settings`);
    });

    it('each default the schema states is the one the resolver applies', () => {
      let checked = 0;
      for (const { kind, props } of branches) {
        const resolved = resolveRadioConfig(base[kind] as unknown as RadioConfig);
        for (const { at, spec } of settings(props)) {
          if (spec.default === undefined) continue;
          assert.equal(resolvedAt(resolved, at), spec.default, `${kind} ${at.join('.')}`);
          checked += 1;
        }
        const rd = RADIO_SETTINGS.reconnectDefaults[kind as 'ble'];
        assert.deepEqual(resolved.reconnect, { initialMs: rd.initial_ms, maxMs: rd.max_ms });
      }
      assert.ok(checked >= 15, `checked ${checked} defaults`);
    });

    it('the gateway loader refuses queue_limit: 2000000 with its path, as the resolver would', () => {
      assert.throws(
        () => loadConfig({ text: 'radios:\n  - {id: s0, kind: simulated}\n  - {id: s1, kind: simulated, queue_limit: 2000000}\n', env: {} }),
        (err: { details?: { problems?: Array<{ path: string; problem: string }> } }) => {
          assert.deepEqual(err.details?.problems, [{ path: 'radios[1].queue_limit', problem: 'must be <= 100000 (got 2000000)' }]);
          return true;
        },
      );
      assert.equal(problem({ id: 's1', kind: 'simulated', queue_limit: 2_000_000 }), 'radios[0].queue_limit');
    });
  });
});
