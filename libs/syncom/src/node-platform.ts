import { createFsBackend } from './backend/fs-backend';
import type { Platform } from './platform';
import { nodePlatform } from './platform/node';
import { createLogCipher } from './sealed/log-cipher';
import { createRecordCipher } from './sealed/record-cipher';
import { encodePage } from './sync/host/page-bytes';

/**
 * Node's whole platform: node:crypto beneath the seam, plus what lives above
 * platform/ and only Node has — the fs backend open() uses for a bare path,
 * sealed records, and the pages' pre-encoded bytes the gateway sends. The
 * `syncom` entry installs it.
 */
export const nodePlatformFull: Platform = {
  ...nodePlatform,
  fileBackend: createFsBackend,
  sealing: { createLogCipher, createRecordCipher },
  encodePage,
};
