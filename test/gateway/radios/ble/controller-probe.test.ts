/**
 * `clawling gateway --check` on a UART controller: the readiness check opens it (Reset, Read Local Version, Read
 * BD_ADDR) and reports manufacturer, HCI version and address, or what failed with the remedy.
 */
import assert from 'node:assert/strict';
import { checkRadioReadiness, formatReadiness } from '../../../../gateway/radios/readiness';
import { resolveRadioConfig } from '../../../../gateway/radios/radio-config';
import { VirtualBle } from '../../../../devble/virtual-ble';

describe('gateway/radios/ble --check on a UART controller', function () {
  this.timeout(20_000);
  let ble: VirtualBle;
  beforeEach(() => {
    ble = new VirtualBle();
  });
  afterEach(async () => {
    await ble.close();
  });

  const check = (adapter: string) =>
    checkRadioReadiness(resolveRadioConfig({ id: 'ble0', kind: 'ble', adapter, flow_control: false }, 'radios[0]'), 'radios[0]');

  it('prints manufacturer, HCI version and address of a controller that answers, and closes it again', async () => {
    const host = await ble.host();
    const r = await check(`uart:${host.path}`);
    const line = formatReadiness(r);
    assert.ok(r.ready, line);
    assert.match(line, /^radio ble0 \(ble\): ready \(uart:\/dev\/pts\/\d+: The Linux Foundation, HCI 5\.0, address [0-9a-f:]{17}\)$/);
    assert.ok(line.includes(host.controller.address.toLowerCase()), line);
    // Closed again: a second check opens it once more (the port lock is gone).
    assert.ok((await check(`uart:${host.path}`)).ready);
  });

  it('a controller that never answers: no HCI answer within a second, with the baud rate and firmware remedy', async () => {
    const host = await ble.host();
    host.controller.detach();
    const r = await check(`uart:${host.path}`);
    assert.equal(r.ready, false);
    assert.equal(r.problems[0]?.code, 'CONTROLLER_FAILED');
    assert.match(r.problems[0]?.problem ?? '', /no HCI answer within 1000 ms/);
    assert.match(r.problems[0]?.remedy ?? '', /radios\[0\]\.baud_rate/);
  });

  it('a path with no device names it and says how to find the right one', async () => {
    const r = await check('uart:/dev/no-such-dongle');
    assert.equal(r.ready, false);
    assert.match(formatReadiness(r), /\/dev\/no-such-dongle: no such device.*fix: plug the dongle in or correct radios\[0\]\.adapter/);
  });
});
