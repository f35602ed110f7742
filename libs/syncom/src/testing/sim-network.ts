import type { SimRandom } from './sim-random';
import type { SimTrace } from './sim-trace';

/** One message in flight, with what each fate does to it. */
export interface Packet {
  /** What the trace calls it ('hello', 'push', 'page', ...). */
  readonly label: string;
  /** Hand it over; a returned promise is the receiver's work, which settle() waits for. */
  deliver(): Promise<unknown> | void;
  /** It is lost (the drop fault); absent for what the transport never loses. */
  lose?(): void;
  /** A copy for the duplicate fault; absent for what is never duplicated. */
  again?(): Packet;
  /** The connection died with it still queued. */
  discard?(): void;
}

/** The faults of one link as the schedule set them. */
export interface LinkFaultState {
  /** 0..1: a delivery is a loss. */
  drop: number;
  /** 0..1: a delivery is followed by a copy. */
  duplicate: number;
  /** 0..1: how strongly the link is passed over when the schedule picks a channel (latency). */
  delay: number;
  /** Calls and answers may overtake each other. */
  reorder: boolean;
}

/** One direction of one kind of traffic on a link: a queue the schedule delivers from. */
export interface Channel {
  readonly id: string;
  /** The node a delivery hands work to. */
  readonly target: number;
  /** Pages and acks keep their order; calls and answers may be reordered. */
  readonly ordered: boolean;
  readonly faults: LinkFaultState;
  readonly queue: Packet[];
}

/**
 * The simulated network: every message waits in a channel until the
 * schedule delivers, loses or duplicates it, one decision at a time, each
 * folded into the trace. Delivery work is tracked so a step can wait until
 * every node is idle before the next decision.
 */
export class SimNetwork {
  private readonly channels = new Map<string, Channel>();
  private sorted: Channel[] | undefined;
  private readonly work = new Set<Promise<unknown>>();
  /** Deliveries by fate: handed over, lost, copied, taken out of order. */
  readonly counts = { delivered: 0, lost: 0, copied: 0, reordered: 0 };

  constructor(private readonly trace: SimTrace) {}

  /** Make a channel; ids are unique and sort the channels for the schedule. */
  open(id: string, target: number, ordered: boolean, faults: LinkFaultState): Channel {
    if (this.channels.has(id)) throw new Error(`channel ${id} exists`);
    const ch: Channel = { id, target, ordered, faults, queue: [] };
    this.channels.set(id, ch);
    this.sorted = undefined;
    return ch;
  }

  /** Forget a channel, discarding what it holds. */
  close(ch: Channel): void {
    this.purge(ch);
    this.channels.delete(ch.id);
    this.sorted = undefined;
  }

  /** Queue a packet on a channel; on a closed one it is discarded at once. */
  send(ch: Channel, packet: Packet): void {
    if (this.channels.get(ch.id) !== ch) return packet.discard?.();
    ch.queue.push(packet);
  }

  /** Discard everything queued on a channel (its connection died). */
  purge(ch: Channel): void {
    for (const p of ch.queue.splice(0)) p.discard?.();
  }

  /** Channels with something to deliver to a node not in `busy`, in id order. */
  ready(busy: ReadonlySet<number>): Channel[] {
    this.sorted ??= [...this.channels.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
    return this.sorted.filter((ch) => ch.queue.length > 0 && !busy.has(ch.target));
  }

  /** Packets queued, all channels. */
  get queued(): number {
    let n = 0;
    for (const ch of this.channels.values()) n += ch.queue.length;
    return n;
  }

  /** Take one packet off a channel and decide its fate: delivered, lost, or delivered and copied. */
  deliver(ch: Channel, rng: SimRandom, faulty = true): void {
    const f = ch.faults;
    const at = faulty && !ch.ordered && f.reorder && ch.queue.length > 1 ? rng.int(ch.queue.length) : 0;
    const [packet] = ch.queue.splice(at, 1);
    const lost = faulty && packet.lose !== undefined && rng.chance(f.drop);
    const copy = faulty && !lost && packet.again !== undefined && rng.chance(f.duplicate);
    this.trace.record('deliver', ch.id, packet.label, at, lost ? 'lost' : copy ? 'twice' : 'ok');
    this.count(at, lost, copy);
    if (lost) return packet.lose?.();
    // A copy of a page comes right behind it (pages keep their order); a copied call may come much later.
    if (copy) ch.queue.splice(ch.ordered ? 0 : ch.queue.length, 0, (packet.again as () => Packet)());
    this.track(packet.deliver());
  }

  private count(at: number, lost: boolean, copy: boolean): void {
    const c = this.counts;
    if (lost) c.lost++;
    else c.delivered++;
    if (copy) c.copied++;
    if (at > 0) c.reordered++;
  }

  /** Count a receiver's work as in progress until it settles. */
  track(work: Promise<unknown> | void): void {
    if (!work) return;
    const done = work.then(() => undefined, () => undefined);
    this.work.add(done);
    void done.then(() => this.work.delete(done));
  }

  /** Whether some delivery's work is still running. */
  get busy(): boolean {
    return this.work.size > 0;
  }

  /** Resolves once the work running now has settled. */
  async settle(): Promise<void> {
    await Promise.all([...this.work]);
  }
}
