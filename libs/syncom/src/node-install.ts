import { nodePlatformFull } from './node-platform';
import { installPlatform } from './platform';

// Imported first by the `syncom` entry, so Node's platform is in place before any module of the engine runs.
installPlatform(nodePlatformFull);
