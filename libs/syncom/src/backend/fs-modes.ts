/**
 * The modes the node:fs backend creates a store's files and folders with:
 * the owner's alone. A store holds the node's private keys (`keys/`), the
 * tokens of the nodes it dials (`remote/`, whose file names are the urls,
 * credentials included, as the spec names them) and the records, none of
 * them for another user of the machine to read, whatever the umask lets
 * through (it can only take more away).
 */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;
