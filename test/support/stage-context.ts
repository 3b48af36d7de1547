import type { RawSettings } from '../../lib/settings';

/**
 * App context for one stage's settings, as cdk.json holds them (`context.stages.<stage>`) with `-c stage=...`;
 * a setting left undefined is left out.
 */
export function stageContext({ stage = 'sandbox', ...entry }: RawSettings = {}): Record<string, unknown> {
  const given = Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined));
  return { stage, stages: { [String(stage)]: given } };
}
