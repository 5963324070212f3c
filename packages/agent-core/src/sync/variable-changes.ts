import { createHmac, randomBytes } from 'node:crypto';
import type { Store } from '@junction/store';
import { z } from 'zod';

/**
 * What an environment's `variables.yml` held at its last sync, kept so the next sync can say
 * which variables changed since: one keyed hash per name, never a value (values are often
 * secrets; the key is random per environment, so a hash cannot be matched against guesses
 * made elsewhere).
 */
const fingerprintSchema = z.object({ key: z.string(), hashes: z.record(z.string(), z.string()) });
type Fingerprint = z.infer<typeof fingerprintSchema>;

const settingKey = (environment: string): string => `sync.variables.${environment}`;

function hashesOf(variables: Record<string, string>, key: string): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables)) {
    hashes[name] = createHmac('sha256', key).update(value).digest('hex').slice(0, 32);
  }
  return hashes;
}

/** The variables of `variables.yml` compared with the last sync's: names only, sorted. */
export interface VariableChanges {
  /** Names added, removed or given a new value since the last sync; empty on a first sync. */
  changed: string[];
  /** Records these variables as the ones synced (not called by a dry run). */
  record(): Promise<void>;
}

export async function variableChanges(
  store: Pick<Store, 'settings'>,
  environment: string,
  variables: Record<string, string>,
): Promise<VariableChanges> {
  // A record of another shape (written by hand, or by another version) counts as none.
  const previous: Fingerprint | undefined = await store.settings
    .get(settingKey(environment), fingerprintSchema)
    .catch((err: unknown) => {
      if ((err as { code?: unknown }).code === 'INVALID_INPUT') return undefined;
      throw err;
    });
  const key = previous?.key ?? randomBytes(16).toString('hex');
  const hashes = hashesOf(variables, key);
  const changed =
    previous === undefined
      ? []
      : [...new Set([...Object.keys(hashes), ...Object.keys(previous.hashes)])]
          .filter((name) => hashes[name] !== previous.hashes[name])
          .sort();
  return {
    changed,
    record: async () => {
      await store.settings.set(settingKey(environment), { key, hashes });
    },
  };
}

/**
 * The line a sync's output gives when variables changed since the last sync, or undefined:
 * a new value is used only from the sync that stores it, which users did not expect.
 */
export function variablesChangedNote(report: {
  dryRun: boolean;
  variablesChanged: readonly string[];
}): string | undefined {
  const names = report.variablesChanged;
  if (names.length === 0) return undefined;
  const list = names.join(', ');
  return report.dryRun
    ? `Variables changed since the last sync: ${list}. Runs and tool servers keep the old values until \`junction sync\` stores the new ones.`
    : `Variables changed since the last sync: ${list}. Tool servers using them now start with the new values; runs before this sync used the old ones.`;
}
