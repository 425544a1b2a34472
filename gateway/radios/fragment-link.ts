/**
 * The BLE fragment layer of one link, shared by the BLE radio and the simulation (which fragments the same way
 * so that the demo and the tests exercise the real fragmenter and reassembler).
 *
 * Choices where the reference is silent or unsafe (docs/radios.md "Fragments"):
 * - One reassembler per link, not one per radio. The reference keys reassembly by message id alone; a message's
 *   fragments always arrive over one link, so keying per link interoperates and stops one peer from poisoning or
 *   evicting another's assemblies. The assembly bound is split across links to keep the radio's memory bound.
 * - The header id of outgoing fragments is a fresh random UUID per frame, not the message id: the reassembler on
 *   the other side never compares the two, and two copies of one message relayed with different hop counts must
 *   never be stitched together by a receiver that sees both.
 */
import { randomUUID } from 'node:crypto';
import {
  encodeFragments,
  type FragmentDropEvent,
  FragmentReassembler,
  FRAGMENT_HEADER_FIXED_BYTES,
  MAX_FRAGMENTS_PER_MESSAGE,
} from '../../lib/mesh/ble-fragment';
import { MeshDecodeError } from '../../lib/mesh/errors';
import { MAX_MESH_FRAME_BYTES } from './radio';

/** The 36-character UUID every outgoing header carries. */
const HEADER_ID_LENGTH = 36;

export interface FragmentLinkOptions {
  maxAssemblies: number;
  now: () => number;
  /** A fragment or an assembly was refused or dropped. */
  onDrop: (reason: string, details: Record<string, unknown>) => void;
}

export class FragmentLink {
  readonly #reassembler: FragmentReassembler;
  readonly #onDrop: FragmentLinkOptions['onDrop'];

  constructor(options: FragmentLinkOptions) {
    this.#onDrop = options.onDrop;
    this.#reassembler = new FragmentReassembler({
      maxAssemblies: options.maxAssemblies,
      now: options.now,
      onDrop: (e: FragmentDropEvent) => this.#onDrop(`fragment_${e.reason}`, { ...e }),
    });
  }

  /** The largest whole frame that fits in 512 fragments of this size (and the 1 MiB cap). */
  static maxFrameBytes(fragmentSize: number): number {
    const perFragment = fragmentSize - FRAGMENT_HEADER_FIXED_BYTES - HEADER_ID_LENGTH;
    return Math.min(MAX_MESH_FRAME_BYTES, perFragment * MAX_FRAGMENTS_PER_MESSAGE);
  }

  /** One radio write per element. */
  static fragment(frame: Uint8Array, fragmentSize: number): Uint8Array[] {
    return encodeFragments(frame, randomUUID(), fragmentSize);
  }

  /** Takes one inbound write; returns the whole frame it completed, if any. Never throws for hostile bytes. */
  push(bytes: Uint8Array): Uint8Array | undefined {
    try {
      const result = this.#reassembler.push(bytes);
      return result.status === 'complete' ? result.frame : undefined;
    } catch (err) {
      if (err instanceof MeshDecodeError) {
        this.#onDrop('fragment_rejected', { code: err.code, bytes: bytes.length });
        return undefined;
      }
      throw err;
    }
  }

  /** Assemblies in progress. */
  get pending(): number {
    return this.#reassembler.size;
  }

  /** Drop idle assemblies on a quiet link. */
  sweep(): void {
    this.#reassembler.sweep();
  }

  clear(): void {
    this.#reassembler.clear();
  }
}
