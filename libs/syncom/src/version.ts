/**
 * The package's version, for the telemetry's instrumentation scope. A constant
 * rather than a read of package.json, which a browser bundle would carry whole
 * and an unbundled ES module (a dev server) cannot require; a test holds it
 * equal to package.json's.
 */
export const VERSION = '0.1.0';
