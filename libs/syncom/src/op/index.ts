export { canonicalJson } from './canonical';
export { checkOp, checkShape, checkSkew, DEFAULT_MAX_SKEW, MAX_TS, tooFarAhead } from './check';
export type { CheckOptions, OpCheck, Refusal } from './check';
export {
  generateSealingKeys,
  generateSigningKeys,
  loadPrivateKey,
  loadPublicKey,
  nodeIdOf,
  publicKeyOf,
} from './keys';
export type { PemKeyPair } from './keys';
export { FLAG_HELD, FLAG_SEALED, FLAG_SKIPPED, FLAG_UNSIGNED_OWN, packedBytes, packedJson, packOp, packOps, unpackEntry, unpackOp, unpackOps } from './pack';
export type { PackedOp, UnpackedEntry, UnpackedOps } from './pack';
export { hasPayload, isScrubbed, payloadOf, scrubOp } from './payload';
export type { Payload } from './payload';
export { addDigest, digestForSigning, digestOp, scrubForPurge, SIG_VERSION, sigHeader, signOp, helloProofText, signOpAsync } from './sign';
export { GLOBAL_SCOPE, OP_TYPES, opStreamKey, PAYLOAD_FIELDS, streamKey } from './types';
export { isScopeName, MAX_SCOPE_NAME, MAX_SCOPE_NAMES } from './scope-name';
export type { Op, OpType, Stamp, Vector } from './types';
export { hasIntactDigest, verifyOps } from './verify';
export type { Verdict, VerifyOptions } from './verify';
