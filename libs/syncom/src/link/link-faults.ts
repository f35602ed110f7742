import { mulberry32 } from '../backend/memory-damage';

/**
 * Faults a memory link injects. Every random choice comes from one
 * mulberry32(seed), so the same seed over the same traffic replays the same
 * faults. With none configured the link uses no timers at all.
 *
 * @example link.faults({ seed: 7, drop: 0.1, duplicate: 0.1, delay: 20 })
 */
export interface LinkFaults {
  /** Seeds the PRNG (default 1). */
  seed?: number;
  /**
   * 0..1. A page is lost; a call is lost and rejects with code 'LINK_TIMEOUT'
   * as an ack timeout would — the request never reached the host, or (a coin
   * decides) the host ran it and the answer was lost.
   */
  drop?: number;
  /** 0..1. A page is delivered twice (same event id); a call runs twice at the host, the second answer ignored. */
  duplicate?: number;
  /**
   * Milliseconds before a page or an answer is delivered, via setTimeout. A
   * number is an upper bound: each delivery draws 0..delay. A function draws
   * its own from the link's PRNG. 0 = none.
   */
  delay?: number | ((rng: () => number) => number);
  /** Answers to calls may overtake each other (their delay draws differ). Pages stay ordered within a subscription. */
  reorder?: boolean;
}

/** The link's draws, in a fixed order per delivery so a seed replays. */
export interface FaultDice {
  readonly reorder: boolean;
  /** Whether any delay is configured: deliveries then go through timers. */
  readonly delays: boolean;
  drop(): boolean;
  duplicate(): boolean;
  delay(): number;
  coin(): boolean;
}

const isChance = (p: unknown) => p === undefined || (typeof p === 'number' && p >= 0 && p <= 1);

/**
 * Checks a LinkFaults value.
 * @throws TypeError when a probability is outside 0..1, a delay is negative or the seed is not a number.
 */
export function checkFaults(faults: LinkFaults): void {
  if (typeof faults !== 'object' || faults === null) throw new TypeError('faults must be an object');
  if (!isChance(faults.drop) || !isChance(faults.duplicate)) throw new TypeError('drop and duplicate are probabilities in 0..1');
  const { delay, seed } = faults;
  if (delay !== undefined && typeof delay !== 'function' && !(typeof delay === 'number' && delay >= 0)) {
    throw new TypeError('delay is ms >= 0 or a function of the rng');
  }
  if (seed !== undefined && !Number.isFinite(seed)) throw new TypeError('seed must be a finite number');
}

/** The dice for a set of faults (checked first). */
export function createFaultDice(faults: LinkFaults = {}): FaultDice {
  checkFaults(faults);
  const rng = mulberry32(faults.seed ?? 1);
  const chance = (p = 0) => p > 0 && rng() < p;
  const { delay } = faults;
  return {
    reorder: faults.reorder === true,
    delays: delay !== undefined && delay !== 0,
    drop: () => chance(faults.drop),
    duplicate: () => chance(faults.duplicate),
    delay: () => drawDelay(delay, rng),
    coin: () => rng() < 0.5,
  };
}

function drawDelay(delay: LinkFaults['delay'], rng: () => number): number {
  if (delay === undefined || delay === 0) return 0;
  const ms = typeof delay === 'function' ? delay(rng) : Math.floor(rng() * (delay + 1));
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/** Timers a link can wake all at once (on a cut, what was in the air is gone). */
export interface Sleeper {
  /** Resolves after `ms`; at once, with no timer, for ms <= 0. */
  sleep(ms: number): Promise<void>;
  /** Resolves every pending sleep now and clears its timer. */
  wakeAll(): void;
}

/** A Sleeper over setTimeout. */
export function createSleeper(): Sleeper {
  const pending = new Map<ReturnType<typeof setTimeout>, () => void>();
  return {
    sleep(ms) {
      if (!(ms > 0)) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          pending.delete(timer);
          resolve();
        }, ms);
        pending.set(timer, resolve);
      });
    },
    wakeAll() {
      const all = [...pending];
      pending.clear();
      for (const [timer, resolve] of all) {
        clearTimeout(timer);
        resolve();
      }
    },
  };
}
