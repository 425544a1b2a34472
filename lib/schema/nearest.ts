/**
 * The known name a mistyped one most likely meant (`usernme` → `username`), by edit distance with a swap of two
 * neighbouring letters counting as one edit; none when nothing is close enough to be a typo rather than another word.
 */

function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

export function nearestName(wrong: string, known: Iterable<string>): string | undefined {
  const given = wrong.toLowerCase();
  const limit = Math.max(1, Math.min(3, Math.floor(given.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const d = distance(given, name.toLowerCase());
    if (d < bestDistance && d <= limit) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}
