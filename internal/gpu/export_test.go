package gpu

import (
	"context"
	"errors"
)

// SlotCount is an Engine's slots.
const SlotCount = slotCount

// ShareWork is a batch's chunks for a test of one Engine's share of it:
// the test takes chunks as the batch's other devices would (TakeAsOther)
// and gives them back as a failing device does (GiveBack).
type ShareWork struct{ w *work }

// NewShareWork splits count items into chunks of chunk items for devices
// devices, the Engine's among them.
func NewShareWork(count, chunk, devices int) *ShareWork {
	return &ShareWork{newWork(count, chunk, devices)}
}

// OnHandedOut sets what runs once every chunk has been handed out, as a
// Pool starts its next Run then.
func (s *ShareWork) OnHandedOut(f func()) { s.w.taken = f }

// TakeAsOther takes the next pending chunk for a device other than the
// Engine's.
func (s *ShareWork) TakeAsOther() [2]int {
	var taken int
	c, _, _ := s.w.take(&taken, false)
	return [2]int{c.lo, c.hi}
}

// GiveBack fails one of the other devices, giving back its chunks.
func (s *ShareWork) GiveBack(chunks ...[2]int) {
	held := make([]span, len(chunks))
	for i, c := range chunks {
		held[i] = span{c[0], c[1]}
	}
	s.w.deviceFailed(errors.New("gpu: a test's device failed"), held)
}

// RunShare computes e's share of the batch as a Pool's Run does
// (Engine.runOn): handover is called once e has no chunk left to take.
func (e *Engine) RunShare(ctx context.Context, b Batch, s *ShareWork, handover func()) error {
	_, err := e.runOn(ctx, b, s.w, handover)
	return err
}
