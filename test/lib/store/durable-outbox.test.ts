import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../../../lib/store';
import { durableOutboxSuite } from './support/durable-outbox-suite';

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'clawling-outbox-'));
let counter = 0;
after(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

durableOutboxSuite('MemoryStore', { open: () => openStore(':memory:') });
durableOutboxSuite('SqliteStore', { open: () => openStore(path.join(tmpRoot, `s${++counter}`, 'store.sqlite')) });
