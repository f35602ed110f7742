import { installPlatform } from './index';
import { webPlatform } from './web';

// Imported first by the `syncom/browser` entry, so the browser's platform is in place before any module of the engine runs.
installPlatform(webPlatform);
