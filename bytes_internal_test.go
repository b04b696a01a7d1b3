package ecmul

import (
	"testing"

	"github.com/rnsec/ecmul/internal/ladder"
)

// TestStatusOfOutcome: each outcome of the finish gets its status, and
// put writes the point or zero bytes by the status alone.
func TestStatusOfOutcome(t *testing.T) {
	for o, want := range map[ladder.Outcome]Status{ladder.OutPoint: StatusPoint, ladder.OutInfinity: StatusInfinity, ladder.OutFailed: StatusResultCheck} {
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
