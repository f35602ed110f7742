import { convergenceSuite } from './convergence';

convergenceSuite(__filename);
