import { Inject } from '@nestjs/common';
import { Storage } from 'syncom';

/**
 * The DI token of the storage SyncomModule opens: the engine's Storage class,
 * so `constructor(storage: Storage)` injects it by type too.
 */
export function getStorageToken(): typeof Storage {
  return Storage;
}

/**
 * Injects the module's storage.
 *
 * @example
 * constructor(@InjectStorage() private readonly storage: Storage) {}
 */
export function InjectStorage(): PropertyDecorator & ParameterDecorator {
  return Inject(getStorageToken());
}
