/**
 * A count with its noun in English: "1 virtual peer", "2 virtual peers", "0 centrals". Status lines and the demo
 * print counts that are often 1 (a simulated radio with one peer, a peripheral full at one central), and "1 virtual
 * peers" reads as a slip to the person looking at the status page.
 */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
