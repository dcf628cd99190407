// loopsmith-loop.mjs: loopsmith-loop.js for `import { LoopsmithLoop } from './loopsmith-loop.mjs'`.
// The classic script defines <loopsmith-loop> and window.LoopsmithLoop; this module re-exports it.
import './loopsmith-loop.js';

export const LoopsmithLoop = globalThis.LoopsmithLoop;
export default LoopsmithLoop;
