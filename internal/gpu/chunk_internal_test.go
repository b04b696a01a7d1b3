package gpu

import (
	"errors"
	"testing"

	"github.com/rnsec/ecmul/internal/kernels"
)

// TestChunkFor: chunks of whole waves, pipelineDepth or more per device for
// a batch of several waves, pipelineDepth chunks of at least minSplitChunk
// items, or else one, for a share of at most a wave, and Config.Chunk as the
// ceiling.
func TestChunkFor(t *testing.T) {
	const wave = 14784 // 132 SMs × 2 blocks × 56 items
	for _, c := range []struct {
		count, chunk, devices, wave, want int
	}{
		{0, 1 << 17, 1, wave, 1},
		{1, 1 << 17, 1, wave, 1},
		{wave, 1 << 17, 1, wave, wave / 3},         // one wave: three chunks side by side
		{767, 1 << 17, 1, wave, 767},               // too few items to cut: one chunk
		{768, 1 << 17, 1, wave, 256},               // three chunks of minSplitChunk
		{1024, 1 << 17, 1, wave, 342},              //
		{1024, 300, 1, wave, 300},                  // Config.Chunk still the ceiling
		{wave + 1, 1 << 17, 1, wave, wave},         // two waves' launches either way
		{65536, 1 << 17, 1, wave, 2 * wave},        // 5 waves: 2 + 2 + 1
		{65536, 65536, 1, wave, 2 * wave},          // the CLI's batches
		{1 << 22, 1 << 17, 1, wave, 8 * wave},      // Config.Chunk, rounded down to 8 waves
		{1 << 22, 1 << 17, 2, wave, 8 * wave},      //
		{65536, 1 << 17, 2, wave, wave},            // 32768 per device: 3 waves, one a chunk
		{10000, 1 << 17, 2, wave, 1667},            // a small batch: three chunks per device
		{1500, 1 << 17, 2, wave, 750},              // too few per device to cut: one chunk each
		{65536, 1 << 17, 1, 0, 65536},              // wave unknown: one chunk
		{8, 3, 1, 0, 3},                            //
		{100, 3, 1, 64, 3},                         // Config.Chunk below a wave
		{400, 1000, 1, 64, 192},                    // 7 waves: 3 + 3 + 1
		{3 * 1 << 17, 1 << 17, 1, wave, 8 * wave},  // three full chunks
		{3*8*wave - 1, 1 << 17, 1, wave, 8 * wave}, //
		{2*8*wave + 1, 1 << 17, 1, wave, 6 * wave}, // 17 waves' worth: 6 + 6 + 5
		{2*8*wave + 1, 1 << 17, 3, wave, 2 * wave}, // 6 waves per device
		{16 * wave, 1 << 17, 16, wave, wave / 3},   // one wave per device
		{16*wave + 16, 1 << 17, 16, wave, wave},    // a little more than a wave per device
		{1 << 17, 1 << 17, 1, 1 << 18, 43691},      // a wave larger than the chunk
		{3 << 17, 1 << 17, 1, 1 << 18, 1 << 17},    //
		{5, 100, 7, wave, 1},                       // more devices than items
	} {
		got := chunkFor(c.count, c.chunk, c.devices, c.wave, false)
		if got != c.want {
			t.Errorf("chunkFor(%d, %d, %d, %d) = %d, want %d", c.count, c.chunk, c.devices, c.wave, got, c.want)
		}
		if c.count > 0 && (got < 1 || got > c.chunk) {
			t.Errorf("chunkFor(%d, %d, %d, %d) = %d: outside [1, chunk]", c.count, c.chunk, c.devices, c.wave, got)
		}
	}
}

// TestChunkForOverlapped: an overlapped batch is one chunk per device,
// whatever its waves, where Config.Chunk holds a device's share, and the
// fewest equal chunks of at most Config.Chunk where it does not.
func TestChunkForOverlapped(t *testing.T) {
	const wave = 33792
	for _, c := range []struct {
		count, chunk, devices, want int
	}{
		{0, 1 << 18, 1, 1},
		{1 << 18, 1 << 18, 1, 1 << 18},     // a signing step: one chunk
		{1 << 15, 1 << 18, 1, 1 << 15},     // the ramp's first step: one chunk too
		{1 << 18, 1 << 17, 1, 1 << 17},     // two chunks of Config.Chunk, not cut to waves
		{1<<18 + 1, 1 << 18, 2, 1<<17 + 1}, // one chunk per device
		{458752, 1 << 17, 2, 114688},       // two equal chunks per device, not 3 full and a half one
		{3<<17 + 1, 1 << 17, 1, 98305},     // four chunks, the last one item short
		{5, 100, 7, 1},
	} {
		if got := chunkFor(c.count, c.chunk, c.devices, wave, true); got != c.want {
			t.Errorf("chunkFor(%d, %d, %d, %d, overlapped) = %d, want %d", c.count, c.chunk, c.devices, wave, got, c.want)
		}
	}
}

// TestFinishItemsByChunk: a full chunk that a pipeline's worth of later
// chunks follows finishes Config.Finish.ItemsPerThread items a thread
// (kernels.FinishItemsPerThread for 0), one of a batch's last chunks at
// most kernels.FinishItemsLastChunk, a smaller chunk as many threads as a
// full one (but never fewer than one item a thread), and an engine without
// a finish kernel none.
func TestFinishItemsByChunk(t *testing.T) {
	const full = 1 << 18
	for _, c := range []struct{ perThread, n, notLast, last int }{
		{0, full, kernels.FinishItemsPerThread, kernels.FinishItemsLastChunk},
		{kernels.FinishItemsMax, full, kernels.FinishItemsMax, kernels.FinishItemsLastChunk},
		{4, full, 4, 4},
		{0, full / 4, kernels.FinishItemsPerThread / 4, kernels.FinishItemsLastChunk / 4},
		{0, full/4 + 1, kernels.FinishItemsPerThread/4 + 1, kernels.FinishItemsLastChunk/4 + 1},
		{0, 1 << 14, kernels.FinishItemsPerThread / 16, 1},
		{0, 1, 1, 1},
	} {
		e := &Engine{cfg: Config{Chunk: full, Finish: &FinishKernel{ItemsPerThread: c.perThread}}}
		if got := e.finishItems(c.n, false); got != c.notLast {
			t.Errorf("%d a thread, %d items: a chunk others follow takes %d, want %d", c.perThread, c.n, got, c.notLast)
		}
		if got := e.finishItems(c.n, true); got != c.last {
			t.Errorf("%d a thread, %d items: a last chunk takes %d, want %d", c.perThread, c.n, got, c.last)
		}
	}
	if got := (&Engine{cfg: Config{Chunk: full}}).finishItems(full, false); got != 0 {
		t.Errorf("no finish kernel: %d items a thread", got)
	}
}

// TestFullChunkInWaves: a full chunk is Config.Chunk, cut to whole waves
// where it spans several, as chunkFor cuts a long batch.
func TestFullChunkInWaves(t *testing.T) {
	for _, c := range []struct{ chunk, wave, want int }{
		{1 << 17, 16896, 7 * 16896},
		{1 << 17, 0, 1 << 17},
		{1 << 17, 1 << 18, 1 << 17},
	} {
		e := &Engine{cfg: Config{Chunk: c.chunk}, wave: c.wave}
		if got := e.fullChunk(); got != c.want {
			t.Errorf("chunk %d, wave %d: full chunk %d, want %d", c.chunk, c.wave, got, c.want)
		}
		if got := chunkFor(100*c.chunk, c.chunk, 1, c.wave, false); got != c.want {
			t.Errorf("chunk %d, wave %d: chunkFor cuts %d, not the full chunk %d", c.chunk, c.wave, got, c.want)
		}
	}
}

// TestWorkShares: a batch with shares hands each device at most its share
// of the chunks while every device takes part, and the chunks of a device
// that fails to whichever asks; without shares, a device takes all it asks
// for.
func TestWorkShares(t *testing.T) {
	w := newWork(40, 10, 2) // 4 chunks
	w.shared()
	var a, b int
	for range 2 {
		if _, ok, _ := w.take(&a, false); !ok {
			t.Fatal("a device did not get its share")
		}
	}
	if _, ok, more := w.take(&a, false); ok || !more {
		t.Fatalf("a device past its share took a chunk (ok %v, more %v)", ok, more)
	}
	c, ok, _ := w.take(&b, false)
	if !ok {
		t.Fatal("the other device did not get its share")
	}
	w.deviceFailed(errors.New("a test's device failed"), []span{c})
	for range 2 {
		if _, ok, _ := w.take(&a, false); !ok {
			t.Fatal("a device past its share did not take the chunks of one that failed")
		}
	}

	free := newWork(40, 10, 2)
	var only int
	for range 4 {
		if _, ok, _ := free.take(&only, false); !ok {
			t.Fatal("without shares, a device did not get every chunk it asked for")
		}
	}
}
