import { Controller, Get, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectStorage, servedPeer } from 'syncom-nest';
import type { Storage } from 'syncom';
import { peerTokens } from './hub-logger.service';

/** What GET /health answers to anyone: enough to tell the hub is up and how busy it is, no node ids. */
export interface HubHealth {
  /** false (and status 503) while the storage refuses writes: a failure no write has succeeded since. */
  ok: boolean;
  /** The storage's last failure, reported in the last minute, while no write has succeeded since (IO_ERROR: the log refused a write; UNPERSISTED: record files not written). */
  failing?: { code: string; since: string };
  id: string;
  /** Seconds since this process started. */
  uptime: number;
  counts: {
    /** Dialed peers (SYNCOM_PEERS) connected now. */
    peersConnected: number;
    /** Dialed peers registered. */
    peers: number;
    /** Live changes feeds this hub serves. */
    hosted: number;
    /** Record entries held, tombstones included. */
    records: number;
  };
  /** The log: where a resume still works (floor), its newest position (head) and the entries retained. */
  log: { floor: number; head: number; size: number };
}

/** GET /health with SYNCOM_HEALTH_DETAIL=1: the counts, plus who writes and who syncs. */
export interface HubHealthDetail extends HubHealth {
  vector: Record<string, number>;
  /** The dialed peers, their urls and last errors without credentials (servedPeer; a peer's refusal without the token sent it). */
  peers: ReturnType<typeof servedPeer<ReturnType<Storage['sync']['peers']>[number]>>[];
  hosted: ReturnType<Storage['sync']['hosted']>;
}

/**
 * How long a failure keeps /health at 503 after it was last reported, with no write committed since (IO_ERROR)
 * or at all (UNPERSISTED). Taken as a readiness signal, a 503 stops the writes whose commit would clear it: a
 * hub whose disk had been full for a moment stayed out of rotation until restarted. After a minute it is
 * ready again, and the next write that fails makes it 503 for another.
 */
const FAILING_FOR_MS = 60_000;

/**
 * GET /health. Unauthenticated, so by default it names no writer, no peer
 * and no cursor: those tell an attacker which node ids and seqs to squat.
 * SYNCOM_HEALTH_DETAIL=1 adds them — `vector`, `peers` (sync.peers()) and
 * `hosted` (sync.hosted()) — for an operator whose /health is not public.
 */
@Controller('health')
export class HealthController {
  private readonly detail: boolean;
  /**
   * The storage's failure to write: the log's (IO_ERROR) until a write is committed again or a minute passes
   * without one; the record files' (UNPERSISTED, after the commit: a commit says nothing of them) until a
   * minute passes without one.
   */
  private failure?: { code: string; since: string; last: number };

  constructor(@InjectStorage() private readonly storage: Storage, config: ConfigService) {
    this.detail = config.get<boolean>('hub.healthDetail') === true;
    // /health said ok while every write failed (a full or read-only disk): the storage's own reports decide it.
    storage.on('error', (e) => {
      if (e.code !== 'IO_ERROR' && e.code !== 'UNPERSISTED') return;
      // A failure that had expired (the hub answered ready since) starts a new since.
      const held = this.failing;
      const since = held?.code === e.code ? held.since : new Date().toISOString();
      this.failure = { code: e.code, since, last: Date.now() };
    });
    storage.on('change', () => { if (this.failure?.code === 'IO_ERROR') this.failure = undefined; });
  }

  /** The failure /health reports now, if any. */
  private get failing(): { code: string; since: string } | undefined {
    const f = this.failure;
    if (!f || Date.now() - f.last > FAILING_FOR_MS) return undefined;
    return { code: f.code, since: f.since };
  }

  @Get()
  health(@Res({ passthrough: true }) res: { status(code: number): unknown }): HubHealth | HubHealthDetail {
    const s = this.storage;
    const failing = this.failing;
    if (failing) res.status(503);
    const peers = s.sync.peers();
    // Counted, not listed: anyone may GET /health, and a list of every live feed cost each GET the hub's feeds.
    const hosted = this.detail ? s.sync.hosted() : undefined;
    const log = s.replica;
    const brief: HubHealth = {
      ok: failing === undefined,
      ...(failing && { failing }),
      id: s.id,
      uptime: Math.round(process.uptime()),
      counts: { peersConnected: peers.filter((p) => p.connected).length, peers: peers.length, hosted: hosted?.length ?? s.sync.hostedCount(), records: log.records.size },
      log: { floor: log.floor, head: log.head, size: log.head - log.floor },
    };
    return hosted ? { ...brief, vector: log.vector, peers: peers.map((p) => this.served(p)), hosted } : brief;
  }

  /**
   * A dialed peer as served: a peer hub words its refusals as it likes, and may quote the token this hub sent it
   * (servedPeer scrubs the tokens, then cuts the words to 300 characters).
   */
  private served(p: ReturnType<Storage['sync']['peers']>[number]): HubHealthDetail['peers'][number] {
    return servedPeer(p, peerTokens(this.storage));
  }
}
