// ARMv7-A CPU core — entry module of the WebAssembly build.
// Everything the host calls is exported from here; the core's parts live in
// the files this module re-exports. The host contract is described in the
// package README (memory layout, MMIO imports, stop reasons).
export { expandImmediate, expandImmediateCarry } from './shifter';
export {
  init, reset, run, abandonRun, requestStop, deliverStop, setStopMask, setIrqLine, setFiqLine, executeDisplaced, executeDisplacedT32, takeException, setTrapHook,
  STOP_BUDGET, STOP_HALT, STOP_DTRACE, STOP_BKPT, STOP_UNDEFINED, STOP_PREFETCH_ABORT, STOP_DATA_ABORT, STOP_SVC, STOP_TRAPPED,
} from './run';
export { decodeA32 } from './generated/a32-decoder';
export { decodeT16, decodeT32 } from './generated/t32-decoder';
export * from './host';
export { emulate, emulationMatches } from './dtrace';
export { fastSitesOffset, fastLimitsOffset, fastSiteCapacity, setFastSites } from './fastsite';
