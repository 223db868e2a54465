// Runs before every package's tests: property and fuzz tests (fast-check) use
// a fixed seed so a run is reproducible and CI cannot fail by chance.
// FUZZ_SEED=<n> replays a reported seed; FUZZ_SEED=random explores new ones.
import fc from 'fast-check';

const wanted = process.env.FUZZ_SEED;
const DEFAULT_SEED = 20261122;
if (wanted !== 'random') {
  fc.configureGlobal({ seed: wanted === undefined ? DEFAULT_SEED : Number(wanted) });
}
