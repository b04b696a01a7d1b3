package ecdsasign_test

import (
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"math/big"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ecdsasign"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/par"
)

// TestFirstSign: with a FirstSign (here the sign kernels' arithmetic in
// math/big, its nonces from ladder.Nonce6979), a batch of SHA-256 digests
// is signed as the host alone signs it, byte for byte, with and without
// the low-s rule, also where FirstSign refuses a candidate (the host signs
// the item itself) or does not run; an item FirstSign gives no point fails
// with ErrNoPoint, and one whose r it gives as 0 goes round again with the
// DRBG's next nonce and verifies. Each step's call but the last says it is
// followed. A batch with another hash never calls it.
func TestFirstSign(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			const count = 15
			keys := randomKeys(newRand(83), c, count)
			digests := keyDigests(c, keys)
			for _, lowS := range []bool{false, true} {
				want, errs := signAll(t, c, digests, keys, ecdsasign.Options{LowS: lowS})
				for i, err := range errs {
					require.NoError(t, err, "item %d", i)
				}
				for _, run := range []bool{true, false} {
					calls := firstCalls{}
					got, errs := signAll(t, c, digests, keys, ecdsasign.Options{LowS: lowS, FirstSign: fakeFirstSign(c, run, calls)})
					require.Equal(t, firstCalls{string(keys[:c.ByteLen()]): {Closing: true}}, calls, "FirstSign runs %v: one step, followed by none", run)
					for i := range count {
						checkFirstSigned(t, c, run, i, i, keys, digests[i], want[i], got[i], errs[i])
					}
				}
			}
			calls := firstCalls{}
			restore := ecdsasign.SetStepItems(4)
			got, errs := signAll(t, c, digests, keys, ecdsasign.Options{FirstSign: fakeFirstSign(c, true, calls)})
			restore()
			L := c.ByteLen()
			steps := firstCalls{}
			for lo := 0; lo < count; lo += 4 {
				steps[string(keys[lo*L:(lo+1)*L])] = ecdsasign.Place{Followed: lo+4 < count, Closing: true}
			}
			require.Equal(t, steps, calls, "four steps of 4 items: each but the last followed, all closing")
			want, _ := signAll(t, c, digests, keys, ecdsasign.Options{})
			for i := range count {
				checkFirstSigned(t, c, true, i%4, i, keys, digests[i], want[i], got[i], errs[i])
			}
			calls = firstCalls{}
			long := make([][]byte, count)
			for i := range long {
				long[i] = append(append([]byte(nil), digests[i]...), digests[i]...)
			}
			_, errs = signAll(t, c, long, keys, ecdsasign.Options{FirstSign: fakeFirstSign(c, true, calls)})
			require.Empty(t, calls, "SHA-512's digests")
			for i, err := range errs {
				require.NoError(t, err, "item %d", i)
			}
		})
	}
}

// checkFirstSigned checks item i of TestFirstSign, item `at` of its call
// of FirstSign, against the host's signature want (fakeFirstSign says what
// each item of a call gets).
func checkFirstSigned(t *testing.T, c *curves.Curve, run bool, at, i int, keys, digest, want, got []byte, err error) {
	L := c.ByteLen()
	switch {
	case run && at%5 == 2:
		require.ErrorIs(t, err, ecdsasign.ErrNoPoint, "item %d", i)
	case run && at%5 == 3:
		require.NoError(t, err, "item %d", i)
		require.NotEqual(t, want, got, "item %d: r = 0 takes the next nonce", i)
		require.True(t, textbookVerify(c, keys[i*L:(i+1)*L], digest, got), "item %d", i)
	default:
		require.NoError(t, err, "item %d", i)
		require.Equal(t, want, got, "FirstSign runs %v, item %d", run, i)
	}
}

// TestFirstSignPlaces: of a batch in eight steps, each step's call but the
// last says it is followed, and the last four that they close the batch.
func TestFirstSignPlaces(t *testing.T) {
	c := curves.P256()
	const count, stepItems = 15, 2
	keys := randomKeys(newRand(89), c, count)
	digests := keyDigests(c, keys)
	calls := firstCalls{}
	restore := ecdsasign.SetStepItems(stepItems)
	_, errs := signAll(t, c, digests, keys, ecdsasign.Options{FirstSign: fakeFirstSign(c, true, calls)})
	restore()
	require.Len(t, errs, count)
	L, want := c.ByteLen(), firstCalls{}
	for j, lo := 0, 0; lo < count; j, lo = j+1, lo+stepItems {
		want[string(keys[lo*L:(lo+1)*L])] = ecdsasign.Place{Followed: j < 7, Closing: j >= 4}
	}
	require.Equal(t, want, calls)
}

// keyDigests returns the SHA-256 digest of each of c's private keys in
// keys, as SHA-256 digests to sign.
func keyDigests(c *curves.Curve, keys []byte) [][]byte {
	L := c.ByteLen()
	digests := make([][]byte, len(keys)/L)
	for i := range digests {
		d := sha256.Sum256(keys[i*L : (i+1)*L])
		digests[i] = d[:]
	}
	return digests
}

// firstCalls records calls of FirstSign: the first item's key of each, and
// its place.
type firstCalls map[string]ecdsasign.Place

// fakeFirstSign signs each item as the sign kernels do, in math/big, with
// its nonce from ladder.Nonce6979 and k·G from the curve's reference, but
// of every five items it refuses the second's candidate, gives the third
// no point and the fourth r = 0; where run is false it does nothing and
// says so. It takes and hands back its items as a device does (onDevice),
// and records each call in calls.
func fakeFirstSign(c *curves.Curve, run bool, calls firstCalls) ecdsasign.FirstSign {
	L, n := c.ByteLen(), c.N()
	var mu sync.Mutex // Sign calls it for several steps at once
	return func(ctx context.Context, items ecdsasign.FirstItems, at ecdsasign.Place) (bool, error) {
		if !run {
			keys := make([]byte, items.Count*L)
			items.Put(0, items.Count, keys, make([]byte, items.Count*L)) // to record the call: Sign must not read it as run
			mu.Lock()
			calls[string(keys[:L])] = at
			mu.Unlock()
			return false, nil
		}
		var failed error
		var failedMu sync.Mutex
		firstKey := onDevice(items, L, func(j int, d, h1, sig []byte) ecdsasign.FirstOutcome {
			k := new(big.Int).SetBytes(ladder.Nonce6979(d, h1))
			x, _, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), k)
			if err != nil {
				failedMu.Lock()
				failed = err
				failedMu.Unlock()
				return ecdsasign.FirstNoPoint
			}
			r := x.Mod(x, n)
			s := new(big.Int).Mul(r, new(big.Int).SetBytes(d))
			s.Add(s, new(big.Int).SetBytes(h1))
			s.Mul(s, new(big.Int).ModInverse(k, n)).Mod(s, n)
			r.FillBytes(sig[:L])
			s.FillBytes(sig[L:])
			if j%5 == 3 {
				clear(sig[:L])
			}
			return []ecdsasign.FirstOutcome{ecdsasign.FirstSigned, ecdsasign.FirstRefused, ecdsasign.FirstNoPoint, ecdsasign.FirstSigned, ecdsasign.FirstSigned}[j%5]
		})
		mu.Lock()
		calls[firstKey] = at
		mu.Unlock()
		return true, failed
	}
}

// TestSignReusesSteps: a call of Sign after another takes its steps from
// the steps kept, where a call that finds none allocates them: three
// steps of 4,096 items, some 8 kB each with FirstSign. Steps
// hold up to 2^18 items, and a batch of 2^17 or more ramps from 2^15
// (docs/library.md).
func TestSignReusesSteps(t *testing.T) {
	require.Equal(t, 1<<18, ecdsasign.CurrentStepItems(), "docs/library.md: steps of up to 2^18 items")
	require.Equal(t, ecdsasign.StepItems, ecdsasign.CurrentStepItems())
	// docs/library.md: a batch of 2^17 items or more starts and ends with a
	// step of 2^15
	b := par.StepBounds(1<<17, ecdsasign.RampItems(), ecdsasign.StepItems)
	require.Equal(t, 1<<15, b[1]-b[0])
	require.Equal(t, 1<<15, b[len(b)-1]-b[len(b)-2])
	require.Len(t, par.StepBounds(1<<17-1, ecdsasign.RampItems(), ecdsasign.StepItems), 2, "one step below 2^17")
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // a collection frees the steps kept
	c := curves.P256()
	s, err := ecdsasign.New(c)
	require.NoError(t, err)
	defer ecdsasign.SetStepItems(4096)()
	const count = 3 * 4096
	L := c.ByteLen()
	keys := randomKeys(newRand(5), c, count)
	digests, _ := randomDigests(newRand(6), count, allHashes[2:3])
	sigs, errs := make([]byte, count*2*L), make([]error, count)
	opt := ecdsasign.Options{FirstSign: fixedFirstSign(c, 0)}
	reserveDeviceBuffers(4, 4*4096*L) // the fake device's own, one for each step Sign holds
	allocated := func(drop bool) uint64 {
		if drop {
			ecdsasign.DropSteps()
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		require.NoError(t, s.Sign(context.Background(), sigs, errs, digests, keys, gxBase(c, 0), opt))
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	allocated(false) // the steps put back
	pooled, fresh := allocated(false), allocated(true)
	t.Logf("bytes allocated per call: %d with kept steps, %d without", pooled, fresh)
	require.Less(t, pooled, fresh/2, "a call with kept steps allocated %d bytes, one without %d", pooled, fresh)
	// a step FirstSign signs holds an outcome and a flag per item: no copy
	// of a key or an h1 (L bytes each) or a signature (2L)
	require.Less(t, fresh, uint64(3*4096*4), "steps of 4,096 items signed on the GPU take no copies")
}

// TestFirstSignAroundFailures: a step with items that fail their checks,
// and items whose hash is not SHA-256, goes to FirstSign whole, each item
// at its place: those that fail get their errors and zero signatures, and
// FirstSign the key 1 in their place; those of another hash are signed by
// the host as it alone signs them, whatever FirstSign gave them; the
// others are signed as the host alone signs them, FirstSign given their
// keys as they are.
func TestFirstSignAroundFailures(t *testing.T) {
	c := curves.P256()
	L := c.ByteLen()
	const count = 12
	keys := randomKeys(newRand(91), c, count)
	digests := keyDigests(c, keys)
	clear(keys[3*L : 4*L])
	c.N().FillBytes(keys[7*L : 8*L])
	digests[9] = digests[9][:31]
	sha384 := sha512.Sum384(digests[2])
	sha224 := sha256.Sum224(digests[8])
	// FirstSign's outcomes at items 2 and 8 would be no point and r = 0
	digests[2], digests[8] = sha384[:], sha224[:]
	var seen [][]byte // the keys FirstSign was given
	var mu sync.Mutex
	first := fakeFirstSign(c, true, firstCalls{})
	record := func(ctx context.Context, items ecdsasign.FirstItems, at ecdsasign.Place) (bool, error) {
		put := items.Put
		items.Put = func(lo, hi int, keys, h1s []byte) {
			put(lo, hi, keys, h1s)
			mu.Lock()
			defer mu.Unlock()
			for len(seen) < hi {
				seen = append(seen, nil)
			}
			for j := lo; j < hi; j++ {
				seen[j] = append([]byte(nil), keys[(j-lo)*L:(j-lo+1)*L]...)
			}
		}
		return first(ctx, items, at)
	}
	want, _ := signAll(t, c, digests, keys, ecdsasign.Options{})
	got, errs := signAll(t, c, digests, keys, ecdsasign.Options{FirstSign: record})
	require.ErrorIs(t, errs[3], ecdsasign.ErrKey)
	require.ErrorIs(t, errs[7], ecdsasign.ErrKey)
	require.ErrorIs(t, errs[9], ecdsasign.ErrDigest)
	require.Len(t, seen, count)
	one := make([]byte, L)
	one[L-1] = 1
	for i := range count {
		switch i {
		case 3, 7, 9:
			require.Equal(t, one, seen[i], "item %d failed: FirstSign gets the key 1", i)
			require.Equal(t, make([]byte, 2*L), got[i], "item %d", i)
		case 2, 8:
			require.Equal(t, one, seen[i], "item %d is not SHA-256's: FirstSign gets the key 1", i)
			require.NoError(t, errs[i], "item %d", i)
			require.Equal(t, want[i], got[i], "item %d: signed by the host", i)
		default:
			require.Equal(t, keys[i*L:(i+1)*L], seen[i], "FirstSign's item %d", i)
			checkFirstSigned(t, c, true, i, i, keys, digests[i], want[i], got[i], errs[i])
		}
	}
}

// TestFirstSignCallsInOrder: a step's call of FirstSign waits until the
// call of the step before has begun to put its items, though its own
// preparation takes no time, so that the steps reach a device's queue in
// their order: here the first call puts its items 30 ms late.
func TestFirstSignCallsInOrder(t *testing.T) {
	c := curves.P256()
	L := c.ByteLen()
	const count = 12
	keys := randomKeys(newRand(29), c, count)
	digests, _ := randomDigests(newRand(30), count, allHashes[2:3])
	defer ecdsasign.SetStepItems(4)()
	fixed := fixedFirstSign(c, 0)
	var mu sync.Mutex
	// per call, in the order made: whether it has begun to put its items,
	// how many calls had when it was made, and the step of its items
	var began, before []int
	steps := []int{-1, -1, -1}
	first := func(ctx context.Context, items ecdsasign.FirstItems, at ecdsasign.Place) (bool, error) {
		mu.Lock()
		call, putting := len(began), 0
		for _, c := range began {
			putting += c
		}
		began, before = append(began, 0), append(before, putting)
		mu.Unlock()
		if call == 0 {
			time.Sleep(30 * time.Millisecond)
		}
		put := items.Put
		items.Put = func(lo, hi int, k, h1s []byte) {
			mu.Lock()
			began[call] = 1
			mu.Unlock()
			put(lo, hi, k, h1s)
			for j := range count / 4 {
				if lo == 0 && string(k[:L]) == string(keys[4*j*L:(4*j+1)*L]) {
					mu.Lock()
					steps[call] = j
					mu.Unlock()
				}
			}
		}
		return fixed(ctx, items, at)
	}
	_, errs := signAll(t, c, digests, keys, ecdsasign.Options{FirstSign: first})
	for i, err := range errs {
		require.NoError(t, err, "item %d", i)
	}
	require.Equal(t, []int{0, 1, 2}, steps, "the steps of the calls, in the order made")
	require.Equal(t, []int{0, 1, 2}, before, "each call made once the calls before it had begun to put their items")
}

// TestStepsWiped: the steps a call puts back in the pool hold no key, nonce
// or inverse, whether its steps went to FirstSign with an item that failed
// its checks, signed on the host, or went to FirstSign with every item
// passing.
func TestStepsWiped(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // a collection frees the steps kept
	c := curves.P256()
	L := c.ByteLen()
	const count = 40
	keys := randomKeys(newRand(17), c, count)
	digests, _ := randomDigests(newRand(18), count, allHashes[2:3])
	bad := append([]byte(nil), keys...)
	clear(bad[5*L : 6*L]) // a key of 0
	defer ecdsasign.SetStepItems(8)()
	for _, run := range []struct {
		name string
		keys []byte
		opt  ecdsasign.Options
	}{
		{"an item failed", bad, ecdsasign.Options{FirstSign: fixedFirstSign(c, 0)}},
		{"host", keys, ecdsasign.Options{}},
		{"whole", keys, ecdsasign.Options{FirstSign: fixedFirstSign(c, 0)}},
	} {
		ecdsasign.DropSteps()
		signAll(t, c, digests, run.keys, run.opt)
		pooled, dirty := ecdsasign.PooledSecrets()
		require.Positive(t, pooled, run.name)
		require.Zero(t, dirty, "%s: %d of %d pooled steps hold secrets", run.name, dirty, pooled)
	}
}

// TestFirstSignItemNotTaken: an item that FirstSign never hands back,
// though it says it ran, fails with ErrNoPoint and a zero signature; the
// others are signed.
func TestFirstSignItemNotTaken(t *testing.T) {
	c := curves.P256()
	L := c.ByteLen()
	const count = 6
	keys := randomKeys(newRand(23), c, count)
	digests, _ := randomDigests(newRand(24), count, allHashes[2:3])
	fixed := fixedFirstSign(c, 0)
	skipOne := func(ctx context.Context, items ecdsasign.FirstItems, at ecdsasign.Place) (bool, error) {
		take := items.Take
		items.Take = func(j int, sig []byte, o ecdsasign.FirstOutcome) {
			if j != 1 {
				take(j, sig, o)
			}
		}
		return fixed(ctx, items, at)
	}
	sigs, errs := signAll(t, c, digests, keys, ecdsasign.Options{FirstSign: skipOne})
	for i := range count {
		if i == 1 {
			require.ErrorIs(t, errs[i], ecdsasign.ErrNoPoint)
			require.Equal(t, make([]byte, 2*L), sigs[i])
			continue
		}
		require.NoError(t, errs[i], "item %d", i)
		require.Equal(t, c.Gx().FillBytes(make([]byte, L)), sigs[i][:L], "item %d: fixedFirstSign's r", i)
	}
}
