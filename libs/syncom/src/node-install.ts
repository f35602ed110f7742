import * as otel from '@opentelemetry/api';
import { nodePlatformFull } from './node-platform';
import { installPlatform } from './platform';
import { installTelemetry } from './telemetry/otel-api';

// Imported first by the `syncom` entry, so Node's platform is in place before any module of the engine runs.
installPlatform(nodePlatformFull);
// Node's entry always speaks the global OpenTelemetry API; the browser entry leaves it to the app, out of its bundle.
installTelemetry(otel);
