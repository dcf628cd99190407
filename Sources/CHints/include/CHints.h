#ifndef LOOPSMITH_CHINTS_H
#define LOOPSMITH_CHINTS_H

// Hints to the CPU that Swift has no spelling for.

// Starts loading the cache line at `address` for a read soon, without keeping it in cache after
// (locality 0): the passes that stream a 33 MB float frame (FrameConverter) ask two rows ahead,
// which the hardware prefetcher alone does not (in `make bench`, converting a freshly drawn
// 1080x1920 frame took 8.1 ms without it, 4.5 ms with it).
static inline void chints_prefetch(const void *address) { __builtin_prefetch(address, 0, 0); }

// Starts loading the cache line at `address` to be written soon, keeping it cached: a row that a
// blend will read and write back (Raster's spans over a 33 MB canvas).
static inline void chints_prefetch_write(void *address) { __builtin_prefetch(address, 1, 3); }

#endif
