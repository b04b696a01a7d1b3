package engine

import (
	"context"
	"fmt"

	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

// SignNonces derives the RFC 6979 nonce k of count = len(status) items of
// ECDSA signing over HMAC-SHA-256 (its first candidate, qlen = 8L, L the
// curve's ByteLen) from each item's private key and h1 = bits2octets(its
// digest), and computes k·G, on the gpu backend's constant-time comb with
// the signing batch's wire kernels: the host copies the keys and h1 up
// (keys and h1s, L bytes each, big-endian; every key in [1, n − 1], every
// h1 below n) and reads back each k (ks, L bytes each) and x(k·G) (xs, L
// bytes each), status[i] StatusPoint where k·G is an affine point. A k
// outside [1, n − 1] is the RFC's refused candidate: the caller takes the
// next one itself. ok is false, and nothing is written, where the engine
// has no such kernels (another backend, a kernel image without them) or
// the batch is not larger than the latency batches: the caller then
// derives the nonces itself.
func (e *Engine) SignNonces(ctx context.Context, xs, ks []byte, status []Status, keys, h1s []byte) (ok bool, err error) {
	r, isGPU := e.gpuRunner()
	count, L := len(status), e.curve.ByteLen()
	if !isGPU || count < gpuItemsMinBatch {
		return false, nil
	}
	sr := r.signRunner()
	if sr == nil {
		return false, nil
	}
	if len(xs) != count*L || len(ks) != count*L || len(keys) != count*L || len(h1s) != count*L {
		return true, fmt.Errorf("%w: SignNonces of %d items", ErrBatchLayout, count)
	}
	clear(status)
	if err := e.usable(); err != nil {
		return true, err
	}
	ctx, release := e.batchContext(ctx)
	defer release()
	split, _ := sr.splitFor(count)
	st, err := sr.eng.Run(ctx, gpu.Batch{Count: count, Overlapped: overlapped(ctx), Wire: sr.signWire(xs, ks, status, keys, h1s, split)})
	sr.recordStats(st)
	return true, e.batchErr(err)
}

// signWire is a signing batch as bytes (package ladder's signwire.go): the
// host copies each item's key and h1 (Fill), and each k, x(k·G) and
// outcome back (Drain).
func (r *gpuRunner) signWire(xs, ks []byte, status []Status, keys, h1s []byte, split splitFunc) *gpu.Wire {
	L := r.su.Curve.ByteLen()
	return &gpu.Wire{
		InBytes:  r.su.SignWireInBytes(),
		OutBytes: r.su.SignWireOutBytes(),
		Fill: func(lo, hi int, in []byte) {
			n := hi - lo
			copy(in[:n*L], keys[lo*L:hi*L])
			copy(in[n*L:2*n*L], h1s[lo*L:hi*L])
		},
		Drain: func(lo, hi int, out []byte) error {
			n := hi - lo
			split(n, minWireItems, func(a, c int) {
				for k := a; k < c; k++ {
					rec := out[k*2*L : (k+1)*2*L]
					copy(xs[(lo+k)*L:(lo+k+1)*L], rec[:L])
					copy(ks[(lo+k)*L:(lo+k+1)*L], rec[L:])
					clear(rec[L:]) // the nonce leaves the pinned buffer
					status[lo+k] = statusOfOutcome(ladder.Outcome(out[n*2*L+k]))
				}
			})
			return nil
		},
	}
}

// SignsNonces reports whether SignNonces runs on e: the gpu backend with
// the signing batch's kernels.
func (e *Engine) SignsNonces() bool {
	r, ok := e.gpuRunner()
	return ok && e.usable() == nil && r.signRunner() != nil
}

// signRunner returns the runner of SignNonces: the constant-time comb's
// kernel with the signing batch's unpack and pack kernels around its
// prepare and finish, opened on the first call with the comb's settings
// and devices. It returns nil where the engine has no constant-time comb
// with its finish on the GPU, or the signing kernels cannot be opened (a
// kernel image without them).
func (r *gpuRunner) signRunner() *gpuRunner {
	cr := r.combRunner(ladder.Comb)
	if cr == nil || cr.su.Schedule.Kind != ladder.Comb || cr.kernel.FinishEntry == "" {
		return nil
	}
	r.signer.once.Do(func() {
		g := cr.gpuOpts
		g.Mapping = cr.kernel.Mapping
		g.ItemsPerBlock = cr.kernel.ItemsPerBlock
		g.sign = true
		sr, err := newGPURunner(cr.su, cr.opts, g)
		if err != nil {
			r.log.Warn("ecmul: gpu backend: ECDSA signing derives its nonces on the host: the signing kernels did not open", "err", err)
			return
		}
		r.combMu.Lock()
		defer r.combMu.Unlock()
		if r.closing {
			sr.close()
			return
		}
		r.signer.r = sr.(*gpuRunner)
	})
	return r.signer.r
}

// gpuSign gives cfg the comb's prepare and finish kernels with the signing
// batch's unpack and pack kernels around them, on the inputs of
// ladder.Setup.SignInputRows; its output rows hold a signing batch's wire
// input.
func gpuSign(cfg *gpu.Config, su *ladder.Setup, g GPUConfig) error {
	if err := gpuFinish(cfg, su, g); err != nil {
		return err
	}
	if cfg.Finish == nil {
		return fmt.Errorf("ecmul: gpu backend: signing needs the finish on the GPU")
	}
	channels := kernels.ChannelTag(su.Params.Bits)
	unpack, err := kernels.SignUnpackName(su.Curve.Name(), channels)
	if err != nil {
		return err
	}
	pack, err := kernels.SignPackName(su.Curve.Name(), channels)
	if err != nil {
		return err
	}
	cfg.InRows = su.SignInputRows()
	cfg.OutRows = max(cfg.OutRows, (su.SignWireInBytes()+3)/4)
	cfg.Prepare.Unpack, cfg.Finish.Pack = unpack, pack
	return nil
}
