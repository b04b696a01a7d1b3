package engine

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"math/rand"
	"testing"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ladder"
)

// TestStatusOfOutcome: each outcome of the finish gets its status, and
// put writes the point or zero bytes by the status alone.
func TestStatusOfOutcome(t *testing.T) {
	for o, want := range map[ladder.Outcome]Status{ladder.OutPoint: StatusPoint, ladder.OutInfinity: StatusInfinity, ladder.OutFailed: StatusResultCheck, ladder.OutOffCurve: StatusNotOnCurve} {
		if got := statusOfOutcome(o); got != want {
			t.Errorf("outcome %d: status %v, want %v", o, got, want)
		}
	}
	b := &bytesBatch{count: 1, size: 2, outPointBytes: 5, out: []byte{9, 9, 9, 9, 9}, status: make([]Status, 1)}
	xy := []byte{1, 2, 3, 4}
	b.put(0, StatusPoint, xy)
	if string(b.out) != "\x04\x01\x02\x03\x04" || b.status[0] != StatusPoint {
		t.Errorf("point: %x %v", b.out, b.status[0])
	}
	b.put(0, StatusInfinity, xy)
	if string(b.out) != "\x00\x00\x00\x00\x00" || b.status[0] != StatusInfinity {
		t.Errorf("infinity with bytes: %x %v", b.out, b.status[0])
	}
}

// TestFillBytes: fillBytes writes what big.Int.FillBytes writes, for values
// of every length up to the buffer's, at both curves' byte lengths.
func TestFillBytes(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for _, L := range []int{28, 32} {
		for bitLen := 0; bitLen <= 8*L; bitLen++ {
			x := new(big.Int).Rand(rng, new(big.Int).Lsh(big.NewInt(1), uint(bitLen)))
			if bitLen > 0 {
				x.SetBit(x, bitLen-1, 1)
			}
			got, want := make([]byte, L), make([]byte, L)
			for i := range got {
				got[i] = 0xa5
			}
			fillBytes(got, x)
			x.FillBytes(want)
			if !bytes.Equal(got, want) {
				t.Fatalf("L=%d x=%x: %x, want %x", L, x, got, want)
			}
		}
	}
}

// TestGPUItemsThreshold: the docs promise the prepare and finish kernels
// to batches of more than 16,384 items, the latency team's largest.
func TestGPUItemsThreshold(t *testing.T) {
	if latencyBatchItems != 16384 || gpuItemsMinBatch != latencyBatchItems+1 {
		t.Fatalf("batches from %d items take the item kernels, the team takes up to %d: the docs say 16,385 and 16,384",
			gpuItemsMinBatch, latencyBatchItems)
	}
}

// TestMaskedCopy: every length (whole words and a tail), with the mask all
// ones and zero, against a byte loop.
func TestMaskedCopy(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for n := range 70 {
		src := make([]byte, n)
		rng.Read(src)
		for _, mask := range []uint8{0xff, 0} {
			dst := bytes.Repeat([]byte{0x5a}, n)
			maskedCopy(dst, src, mask)
			want := make([]byte, n)
			for j := range want {
				want[j] = src[j] & mask
			}
			if !bytes.Equal(dst, want) {
				t.Fatalf("n=%d mask=%#x: %x, want %x", n, mask, dst, want)
			}
		}
	}
}

// BenchmarkPut is the host's writing of one result in each output format
// (uncompressed, compressed, x alone) on P-256.
func BenchmarkPut(b *testing.B) {
	const count = 4096
	c := curves.P256()
	L := c.ByteLen()
	xy := make([]byte, 2*L)
	rand.New(rand.NewSource(1)).Read(xy)
	for _, size := range []int{1 + 2*L, 1 + L, L} {
		bb := &bytesBatch{count: count, size: L}
		if err := bb.setResults(make([]byte, count*size), make([]Status, count)); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) {
			for b.Loop() {
				for i := range count {
					bb.put(i, StatusPoint, xy)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*count), "ns/item")
		})
	}
}

// TestStatusOfMasks: the cpu backend's status comes from Encode's masks:
// the point at infinity, a point off the curve (a fault), or a point.
func TestStatusOfMasks(t *testing.T) {
	const all = ^uint64(0)
	for _, c := range []struct {
		inf, on uint64
		want    Status
	}{{0, all, StatusPoint}, {all, 0, StatusInfinity}, {0, 0, StatusResultCheck}, {all, all, StatusInfinity}} {
		if got := statusOfMasks(c.inf, c.on); got != c.want {
			t.Errorf("infinity %x, on the curve %x: %v, want %v", c.inf, c.on, got, c.want)
		}
	}
}

// TestWithOverlapMarksTheContext: WithOverlap's mark is read back by
// overlapped, through derived contexts too, and absent otherwise; so is
// WithClosing's by closing, apart from it.
func TestWithOverlapMarksTheContext(t *testing.T) {
	ctx := context.Background()
	if overlapped(ctx) {
		t.Fatal("a plain context marked")
	}
	marked, cancel := context.WithCancel(WithOverlap(ctx))
	defer cancel()
	if !overlapped(marked) {
		t.Fatal("a context derived from WithOverlap's not marked")
	}
	if closing(marked) || !closing(WithClosing(marked)) || overlapped(WithClosing(ctx)) {
		t.Fatal("WithClosing's mark and WithOverlap's are not apart")
	}
}
