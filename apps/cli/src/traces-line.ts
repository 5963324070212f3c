// The start-up line that says where traces go and where to see them (serve, traces).
import type { TracesHealth } from '@junction/service-kit';

/** `spans → local store · viewer http://… · receiver http://…/v1/traces`. */
export function tracesLine(health: TracesHealth): string {
  const parts = [`spans → ${health.export}`];
  if (health.viewer) parts.push(`viewer ${health.viewer}`);
  if (health.receiver) parts.push(`receiver ${health.receiver}`);
  return parts.join(' · ');
}
