import { createMemoryBackend, type CrashDamage, type MemoryBackend } from '../backend';
import type { HostUnit, SyncLink } from '../link/contract';
import type { OpType } from '../op/types';
import { open } from '../open';
import type { SchemaOptions } from '../schema/types';
import type { SyncOptions } from '../storage/options';
import type { Storage } from '../storage/storage';
import type { NodeRecord } from '../sync/dial/registry';
import { simKeyFiles } from './sim-keys';
import { issueWrite, type Issued, type SimWrite } from './sim-ops';
import { releasedProblem, secondOpenProblem } from './sim-owners';

/** A write a node acknowledged (its promise resolved): with durable: true it must survive anything. */
export interface AckedWrite {
  node: number;
  origin: string;
  seq: number;
  type: OpType;
  id: string;
  /** A seq of the node's sealed stream (GUAR-19). */
  sealed?: true;
}

/** Options of a simulated node. */
export interface SimNodeOptions {
  index: number;
  /** The run's seed: with the index it gives the node its keys, hence its id. */
  seed: number;
  /** The node's wall clock: the run's virtual time plus the node's offset. */
  now: () => number;
  connect: (node: NodeRecord) => SyncLink;
  /** open({ sync }) without connect. */
  sync: Omit<SyncOptions, 'connect'>;
  /** Records per snapshot page and ops per changes page of its unit. */
  pageSize: number;
  /** Called with each error the storage or its sync reports, by code. */
  onError: (index: number, code: string) => void;
  /** open({ schema }) (none by default). */
  schema?: SchemaOptions;
  /** At each reboot, check the disk has one owner: a second open() fails with LOCKED (see sim-owners.ts). */
  owners?: boolean;
}

/**
 * One simulated process: a storage on a memory backend (durable: true),
 * hosting a public unit, dialing through the simulated network. A crash
 * kills the backend and the process; boot() opens what the disk kept.
 */
export class SimNode {
  /** The storage of the node's current process. */
  storage!: Storage;
  /** The unit it hosts (a reboot makes a new one). */
  unit!: HostUnit;
  /** Its disk (a crash hands over a new one, holding what survived). */
  backend!: MemoryBackend;
  /** Times it was opened: 1, plus one per reboot. */
  boots = 0;
  /** Its acknowledged writes, across reboots. */
  readonly acked: AckedWrite[] = [];
  /** Its writes that were refused. */
  rejected = 0;
  /** With owners on: the one-owner checks made at reboots, and what they found. */
  ownerChecks = 0;
  readonly ownerProblems: string[] = [];
  /** The schema its next boot opens with (an upgrade sets a newer one before a reboot). */
  schema: SchemaOptions | undefined;

  private constructor(readonly o: SimNodeOptions) {
    this.schema = o.schema;
  }

  /** A node on a fresh disk holding only its keys, opened. */
  static async create(o: SimNodeOptions): Promise<SimNode> {
    const node = new SimNode(o);
    await node.boot(createMemoryBackend({ files: await simKeyFiles(o.seed, `n${o.index}`) }));
    return node;
  }

  /** Its place among the simulation's nodes. */
  get index(): number {
    return this.o.index;
  }

  /** Open the storage on a disk (the first one, or what a crash left). */
  async boot(backend: MemoryBackend): Promise<void> {
    this.backend = backend;
    this.boots++;
    this.storage = await open({
      path: this.path, backend, now: this.o.now, durable: true, schema: this.schema,
      sync: { ...this.o.sync, connect: this.o.connect },
    });
    this.unit = this.storage.sync.unit({ access: 'public', pageSize: this.o.pageSize });
    const report = (e: { code: string }) => this.o.onError(this.o.index, e.code);
    this.storage.on('error', report);
    this.storage.sync.on('error', report);
  }

  /**
   * The process dies: the disk keeps what `damage` leaves of what was not
   * synced (durable writes are synced), the old storage is closed against a
   * dead disk (its links close, its writes fail), and the node boots again.
   */
  async reboot(damage: CrashDamage, seed: number): Promise<void> {
    const dead = this.storage;
    const old = this.backend;
    await this.checkOwner(() => secondOpenProblem(old, this.path, 'before a reboot'));
    const disk = this.backend.crash(damage, seed);
    await dead.close().catch(() => undefined);
    await this.checkOwner(() => releasedProblem(old, this.path));
    await this.boot(disk);
    await this.checkOwner(() => secondOpenProblem(disk, this.path, 'after a reboot'));
  }

  private get path(): string {
    return `n${this.o.index}`;
  }

  /** One check of the one-owner rule (with owners on); its problem is kept. */
  private async checkOwner(check: () => Promise<string | undefined>): Promise<void> {
    if (!this.o.owners) return;
    this.ownerChecks++;
    const problem = await check();
    if (problem) this.ownerProblems.push(problem);
  }

  /** Issue a write; a resolved one is recorded as acknowledged. */
  write(w: SimWrite): Issued {
    const s = this.storage;
    const issued = issueWrite(s, w);
    const op = issued.op;
    issued.done = issued.done.then(
      () => void (op && this.acked.push({ node: this.o.index, origin: s.id, seq: op.seq, type: op.type, id: w.id, ...(op.sealed && { sealed: true as const }) })),
      () => void this.rejected++,
    );
    return issued;
  }
}
