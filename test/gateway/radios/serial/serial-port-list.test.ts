import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSerialBackend } from '../../../../gateway/radios/serial/serial-backend';
import { listSerialPorts, portMatches } from '../../../../gateway/radios/serial/serial-port-list';

/** A /dev and /sys tree as a Pi shows it with a USB CDC radio, a USB-serial cable and the on-board UART. */
function fixture(): { root: string; dev: string; sys: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'radios-ports-'));
  const dev = path.join(root, 'dev');
  const sys = path.join(root, 'sys');
  fs.mkdirSync(path.join(dev, 'serial', 'by-id'), { recursive: true });
  for (const name of ['ttyACM0', 'ttyUSB0', 'ttyAMA0', 'ttyS0', 'ttyS1', 'null', 'tty1']) fs.writeFileSync(path.join(dev, name), '');
  fs.symlinkSync('../../ttyACM0', path.join(dev, 'serial', 'by-id', 'usb-Nordic_nRF52_Radio_C0FFEE-if00'));
  fs.symlinkSync('../../ttyGONE', path.join(dev, 'serial', 'by-id', 'usb-unplugged-if00'));
  const usbDevice = path.join(sys, 'devices', 'platform', 'usb1', '1-1');
  const usbTty = path.join(usbDevice, '1-1:1.0', 'tty', 'ttyACM0');
  fs.mkdirSync(usbTty, { recursive: true });
  fs.writeFileSync(path.join(usbDevice, 'idVendor'), '1915\n');
  fs.writeFileSync(path.join(usbDevice, 'idProduct'), 'c00a\n');
  fs.writeFileSync(path.join(usbDevice, 'serial'), 'C0FFEE\n');
  fs.writeFileSync(path.join(usbDevice, 'manufacturer'), 'Nordic Semiconductor\n');
  const uart = path.join(sys, 'devices', 'platform', 'serial0', 'tty', 'ttyS1');
  fs.mkdirSync(uart, { recursive: true });
  for (const [name, target] of [['ttyACM0', usbTty], ['ttyS1', uart]]) {
    fs.mkdirSync(path.join(sys, 'class', 'tty', name), { recursive: true });
    fs.symlinkSync(target, path.join(sys, 'class', 'tty', name, 'device'));
  }
  return { root, dev, sys };
}

describe('gateway/radios serial-port-list', () => {
  it('uses the platform list when it works', async () => {
    const listing = await listSerialPorts({
      backend: { createPort: () => assert.fail('not used'), list: async () => [{ path: '/dev/ttyACM7', vendorId: '2fe3' }] },
    });
    assert.deepEqual(listing, { ports: [{ path: '/dev/ttyACM7', vendorId: '2fe3' }], source: 'platform' });
  });

  it('falls back to /dev and sysfs when the platform list rejects, with USB facts and by-id names', async () => {
    const { dev, sys } = fixture();
    const listing = await listSerialPorts({
      backend: { createPort: () => assert.fail('not used'), list: () => Promise.reject(new Error('spawn udevadm ENOENT')) },
      devDir: dev,
      sysDir: sys,
    });
    assert.equal(listing.source, 'scan');
    assert.match(listing.warning ?? '', /udevadm/);
    assert.deepEqual(listing.ports, [
      {
        path: path.join(dev, 'ttyACM0'),
        vendorId: '1915',
        productId: 'c00a',
        serialNumber: 'C0FFEE',
        manufacturer: 'Nordic Semiconductor',
        pnpId: 'usb-Nordic_nRF52_Radio_C0FFEE-if00',
      },
      { path: path.join(dev, 'ttyAMA0') },
      { path: path.join(dev, 'ttyS1') },
      { path: path.join(dev, 'ttyUSB0') },
    ]);
  });

  it('survives the real SerialPort.list() on a host whose PATH has no udevadm', async () => {
    const { root, dev, sys } = fixture();
    const emptyBin = path.join(root, 'bin');
    fs.mkdirSync(emptyBin);
    const saved = process.env.PATH;
    process.env.PATH = emptyBin;
    let listing;
    try {
      listing = await listSerialPorts({ backend: loadSerialBackend(), devDir: dev, sysDir: sys });
    } finally {
      process.env.PATH = saved;
    }
    assert.equal(listing.source, 'scan');
    assert.match(listing.warning ?? '', /udevadm|ENOENT/);
    assert.equal(listing.ports.length, 4);
  });

  it('gives an empty list, not an error, when even /dev cannot be read', async () => {
    const listing = await listSerialPorts({ devDir: '/nonexistent/dev', sysDir: '/nonexistent/sys' });
    assert.deepEqual(listing, { ports: [], source: 'scan' });
  });

  it('matches ports by USB ids case-insensitively and with or without 0x', () => {
    const port = { path: '/dev/ttyACM0', vendorId: '1915', productId: 'C00A', serialNumber: 'C0FFEE' };
    assert.equal(portMatches(port, { vendorId: '0x1915', productId: 'c00a' }), true);
    assert.equal(portMatches(port, { serialNumber: 'c0ffee' }), false, 'serial numbers are exact');
    assert.equal(portMatches(port, { vendorId: '2fe3' }), false);
    assert.equal(portMatches({ path: '/dev/ttyS0' }, { vendorId: '1915' }), false);
  });
});
