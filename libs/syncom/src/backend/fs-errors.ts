/** The code of a node:fs error (ENOENT, EEXIST, ...); undefined for anything else. */
export const errorCode = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | null)?.code;
