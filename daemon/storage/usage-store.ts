// Corrections counted per tenant and UTC day, for the Free plan's daily limit and GET /v1/usage.
// One small file per tenant holding only today's count: a write never grows with history.
import { readFile } from 'node:fs/promises';
import { KeyedLock, writeFileDurable } from './atomic-file.ts';
import type { DataLayout } from './data-layout.ts';

interface UsageFile {
  day: string;
  corrections: number;
}

export function utcDay(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

export function nextUtcDay(now = new Date()): string {
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  return utcDay(next);
}

export class UsageStore {
  private layout: DataLayout;
  private lock = new KeyedLock();

  constructor(layout: DataLayout) {
    this.layout = layout;
  }

  private async read(tenantId: string): Promise<UsageFile> {
    try {
      const data = JSON.parse(await readFile(this.layout.usageFile(tenantId), 'utf8')) as UsageFile;
      return data.day === utcDay() ? data : { day: utcDay(), corrections: 0 };
    } catch {
      return { day: utcDay(), corrections: 0 };
    }
  }

  async correctionsToday(tenantId: string): Promise<number> {
    return (await this.read(tenantId)).corrections;
  }

  async countCorrection(tenantId: string): Promise<number> {
    return this.lock.run(tenantId, async () => {
      const usage = await this.read(tenantId);
      usage.corrections += 1;
      await writeFileDurable(this.layout.usageFile(tenantId), JSON.stringify(usage));
      return usage.corrections;
    });
  }
}
