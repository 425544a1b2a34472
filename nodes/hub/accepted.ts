/**
 * Whether the client took a send into its outbox. `HubClient.send()` refuses bad input by returning an already
 * rejected promise, and otherwise a promise that settles with the hub's answer, possibly hours later; the node
 * must call `done()` at acceptance, not at the answer. Racing the promise itself (not a derived one) against an
 * already resolved one tells the two apart within one microtask: a settled promise's reaction is queued first.
 */
const PENDING = Symbol('pending');

/** Resolves when the send was accepted (its answer still to come); rejects with the refusal when it was refused at once. */
export async function acceptedIntoOutbox(answer: Promise<unknown>): Promise<void> {
  await Promise.race([answer, Promise.resolve(PENDING)]);
}
