#!/usr/bin/env node
// The daemon's executable: serve, start/stop/status, keys, tenants (daemon/admin.ts; dist/daemon/admin.js
// in an installed package; see entry.js).
import { checkNode, entry } from './entry.js';

checkNode();
const { main } = await import(entry('daemon/admin'));
await main(process.argv.slice(2));
