import { Controller, Get, Header } from '@nestjs/common';
import { HubMetrics } from './hub-metrics';

/** GET /metrics: the syncom metrics in the Prometheus text format; mounted only when SYNCOM_METRICS=1 (else 404). */
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: HubMetrics) {}

  @Get()
  @Header('Content-Type', HubMetrics.contentType)
  scrape(): Promise<string> {
    return this.metrics.text();
  }
}
