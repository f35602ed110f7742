/** Flag of an advance whose vector was granted here (BOOT-11): replay grants it again. */
export const FLAG_GRANTED = 8;
/**
 * Flag of an own merge or advance op logged before its signature (a joined
 * snapshot page): it is signed in the background, and never leaves the node
 * until it is (DESIGN: merge ops of a bootstrap may be signed after their page
 * is joined). A log file holding one is signed again at open; a batch is
 * sealed only once its ops are signed, so the flag lives in open batches only.
 */
export const FLAG_TO_SIGN = 16;
