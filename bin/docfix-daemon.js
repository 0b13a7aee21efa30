#!/usr/bin/env node
// The daemon's executable: serve, start/stop/status, keys, tenants (daemon/admin.ts).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`docfix needs Node.js 22.18 or newer (this is ${process.version}).\n`);
  process.exit(1);
}
const { main } = await import('../daemon/admin.ts');
await main(process.argv.slice(2));
