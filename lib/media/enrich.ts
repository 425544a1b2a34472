/**
 * Adding the locally measured width, height and duration to the hub's fragment (§15.2 allows it; §10.2 says which
 * kind may carry which). The kind is the hub's — it decided from the stored MIME type — and a value the hub itself
 * filled in is never overwritten.
 */
import { ENRICHABLE_FIELDS, type MediaFragment, type MediaKind } from './fragment';
import type { MediaFacts } from './probe/types';
import { own } from './lookup';

export function enrichFragment(fragment: MediaFragment, facts: MediaFacts): MediaFragment {
  const fields = own(ENRICHABLE_FIELDS, fragment.kind as MediaKind) ?? [];
  const out: MediaFragment = { ...fragment };
  for (const field of fields) {
    const value = facts[field];
    if (out[field] === undefined && value !== undefined) out[field] = value;
  }
  return out;
}
