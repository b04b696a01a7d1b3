package ecdsasign_test

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ecdsasign"
)

// TestItemErrors puts bad items among good ones: a key of 0, n, n + 1 or
// all ones, a digest of the wrong length for the named hash, and lengths
// that imply no hash. Each bad item gets an *ItemError naming it and
// saying what is wrong, and a zero signature; the good items get the
// signatures they get in a batch of their own.
func TestItemErrors(t *testing.T) {
	c := curves.P256()
	L, n := c.ByteLen(), c.N()
	good := unhex(t, rfcKeys[c])
	d32, d20 := make([]byte, 32), make([]byte, 20)
	d32[0], d20[0] = 7, 9
	type item struct {
		key    []byte
		digest []byte
		want   error
		text   string
	}
	items := []item{
		{good, d32, nil, ""},
		{make([]byte, L), d32, ecdsasign.ErrKey, "item 1: private key outside [1, n−1]: it is 0"},
		{n.FillBytes(make([]byte, L)), d32, ecdsasign.ErrKey, "item 2: private key outside [1, n−1]: it is n or more"},
		{new(big.Int).Add(n, big.NewInt(1)).FillBytes(make([]byte, L)), d32, ecdsasign.ErrKey, "it is n or more"},
		{[]byte(strings.Repeat("\xff", L)), d32, ecdsasign.ErrKey, "it is n or more"},
		{good, d32[:31], ecdsasign.ErrDigest, "item 5: digest length: a digest of 31 bytes implies no hash"},
		{good, nil, ecdsasign.ErrDigest, "a digest of 0 bytes implies no hash"},
		{good, d20, nil, ""},
	}
	var keys []byte
	var digests [][]byte
	for _, it := range items {
		keys = append(keys, it.key...)
		digests = append(digests, it.digest)
	}
	sigs, errs := signAll(t, c, digests, keys, ecdsasign.Options{})
	alone, _ := signAll(t, c, [][]byte{d32, d20}, append(append([]byte(nil), good...), good...), ecdsasign.Options{})
	for i, it := range items {
		if it.want == nil {
			require.NoError(t, errs[i], "item %d", i)
			continue
		}
		var ie *ecdsasign.ItemError
		require.ErrorAs(t, errs[i], &ie, "item %d", i)
		require.Equal(t, i, ie.Item)
		require.ErrorIs(t, errs[i], it.want, "item %d", i)
		require.Contains(t, errs[i].Error(), it.text, "item %d", i)
		require.Equal(t, make([]byte, 2*L), sigs[i], "item %d", i)
	}
	require.Equal(t, alone[0], sigs[0])
	require.Equal(t, alone[1], sigs[7])

	// Options.ItemError makes every item's error, with the same reason
	wrap := func(i int, err error) error { return fmt.Errorf("mine %d: %w", i, err) }
	_, wrapped := signAll(t, c, digests, keys, ecdsasign.Options{ItemError: wrap})
	for i, it := range items {
		if it.want == nil {
			require.NoError(t, wrapped[i], "item %d", i)
			continue
		}
		require.ErrorIs(t, wrapped[i], it.want, "item %d", i)
		require.True(t, strings.HasPrefix(wrapped[i].Error(), fmt.Sprintf("mine %d: ", i)), "item %d: %v", i, wrapped[i])
		require.False(t, errors.As(wrapped[i], new(*ecdsasign.ItemError)), "item %d: no *ItemError", i)
	}
	s, err := ecdsasign.New(c)
	require.NoError(t, err)
	failed := make([]error, len(digests))
	require.Error(t, s.Sign(context.Background(), make([]byte, len(digests)*2*L), failed, digests, keys, nil, ecdsasign.Options{ItemError: wrap}))
	for i, err := range failed {
		require.True(t, strings.HasPrefix(err.Error(), fmt.Sprintf("mine %d: not signed", i)), "a failed batch, item %d: %v", i, err)
	}

	// a named hash: every digest must have its size
	_, errs = signAll(t, c, [][]byte{d32, d20}, append(append([]byte(nil), good...), good...), ecdsasign.Options{Hash: crypto.SHA256})
	require.NoError(t, errs[0])
	require.ErrorIs(t, errs[1], ecdsasign.ErrDigest)
	require.EqualError(t, errs[1], "ecdsasign: item 1: digest length: a digest of 20 bytes, SHA-256 takes 32")
}

// TestBatchErrors fails whole batches: buffers of the wrong length, a hash
// Sign does not take, no k·G function, k·G's own error, randomness that
// runs out, a context that has ended. The signatures are then zero and
// every item's error says it was not signed.
func TestBatchErrors(t *testing.T) {
	c := curves.P224()
	s, err := ecdsasign.New(c)
	require.NoError(t, err)
	L := c.ByteLen()
	key := unhex(t, rfcKeys[c])
	digests := [][]byte{make([]byte, 32), make([]byte, 32)}
	keys := append(append([]byte(nil), key...), key...)
	base := ctecBase(t, c, nil)
	boom := errors.New("boom")
	failing := func(context.Context, []byte, []bool, []byte) error { return boom }
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name   string
		ctx    context.Context
		keys   []byte
		sigLen int
		errLen int
		base   ecdsasign.BaseMult
		opt    ecdsasign.Options
		want   error
	}{
		{"short keys", context.Background(), keys[:2*L-1], 4 * L, 2, base, ecdsasign.Options{}, ecdsasign.ErrLayout},
		{"long sigs", context.Background(), keys, 4*L + 1, 2, base, ecdsasign.Options{}, ecdsasign.ErrLayout},
		{"few errs", context.Background(), keys, 4 * L, 1, base, ecdsasign.Options{}, ecdsasign.ErrLayout},
		{"no base", context.Background(), keys, 4 * L, 2, nil, ecdsasign.Options{}, ecdsasign.ErrLayout},
		{"md5", context.Background(), keys, 4 * L, 2, base, ecdsasign.Options{Hash: crypto.MD5}, ecdsasign.ErrHash},
		{"base fails", context.Background(), keys, 4 * L, 2, failing, ecdsasign.Options{}, boom},
		{"randomness", context.Background(), keys, 4 * L, 2, base, ecdsasign.Options{Randomness: iotest.ErrReader(boom)}, boom},
		{"canceled", canceled, keys, 4 * L, 2, base, ecdsasign.Options{}, context.Canceled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sigs := make([]byte, tc.sigLen)
			for i := range sigs {
				sigs[i] = 0xaa
			}
			errs := make([]error, tc.errLen)
			err := s.Sign(tc.ctx, sigs, errs, digests, tc.keys, tc.base, tc.opt)
			require.ErrorIs(t, err, tc.want)
			require.Equal(t, make([]byte, tc.sigLen), sigs)
			for i, e := range errs {
				require.ErrorContains(t, e, "not signed", "item %d", i)
			}
		})
	}
}

// TestNoPoint: an item whose k·G the function reports as no point gets
// ErrNoPoint, and the other items their signatures.
func TestNoPoint(t *testing.T) {
	c := curves.P256()
	s, err := ecdsasign.New(c)
	require.NoError(t, err)
	key := unhex(t, rfcKeys[c])
	real := ctecBase(t, c, nil)
	base := func(ctx context.Context, xs []byte, ok []bool, scalars []byte) error {
		err := real(ctx, xs, ok, scalars)
		ok[1] = false
		return err
	}
	digests := [][]byte{make([]byte, 32), make([]byte, 32)}
	sigs := make([]byte, 4*32)
	errs := make([]error, 2)
	require.NoError(t, s.Sign(context.Background(), sigs, errs, digests, append(append([]byte(nil), key...), key...), base, ecdsasign.Options{}))
	require.NoError(t, errs[0])
	require.True(t, textbookVerify(c, key, digests[0], sigs[:64]))
	require.ErrorIs(t, errs[1], ecdsasign.ErrNoPoint)
	require.EqualError(t, errs[1], "ecdsasign: item 1: no point for k·G")
	require.Equal(t, make([]byte, 64), sigs[64:])
}

// TestSteps signs a batch in steps of 7 items, hedged: the signatures are
// those of one step, so that item i takes the same additional data
// whatever the steps.
func TestSteps(t *testing.T) {
	c := curves.Secp256k1()
	const count = 40
	rng := newRand(3)
	keys := randomKeys(rng, c, count)
	digests, _ := randomDigests(rng, count, allHashes)
	extra := make([]byte, count*ecdsasign.ExtraBytes)
	rngReader{rng}.Read(extra)
	opt := func() ecdsasign.Options { return ecdsasign.Options{Randomness: bytesReader(extra), LowS: true} }
	whole, _ := signAll(t, c, digests, keys, opt())
	defer ecdsasign.SetStepItems(7)()
	steps, errs := signAll(t, c, digests, keys, opt())
	for i := range count {
		require.NoError(t, errs[i])
		require.Equal(t, whole[i], steps[i], "item %d", i)
		require.True(t, textbookVerify(c, keys[i*32:(i+1)*32], digests[i], steps[i]), "item %d", i)
	}
}

// TestRetriesEnd: a k·G that gives x = 0 for every nonce fails each item
// after eight nonces, and does not loop.
func TestRetriesEnd(t *testing.T) {
	c := curves.P256()
	s, err := ecdsasign.New(c)
	require.NoError(t, err)
	key := unhex(t, rfcKeys[c])
	calls := 0
	base := func(_ context.Context, xs []byte, ok []bool, _ []byte) error {
		calls++
		clear(xs)
		for i := range ok {
			ok[i] = true
		}
		return nil
	}
	sigs := dirty(64)
	errs := make([]error, 1)
	require.NoError(t, s.Sign(context.Background(), sigs, errs, [][]byte{make([]byte, 32)}, key, base, ecdsasign.Options{}))
	require.Equal(t, 8, calls)
	require.EqualError(t, errs[0], "ecdsasign: item 0: r or s was 0 for 8 nonces in a row: k·G is faulty")
	require.Equal(t, make([]byte, 64), sigs)
}

// TestStepsInFlight signs in steps of 5 items in the memory of four: a
// fourth k·G call begins before the first returns (which waits for it), a
// fifth only after one has returned, once for every step, and the signatures are
// those of one call for the whole batch; a k·G that fails on the third
// step, while the fourth's and fifth's may be computing, fails the batch,
// its signatures zero and every item not signed.
func TestStepsInFlight(t *testing.T) {
	c := curves.P256()
	s, err := ecdsasign.New(c)
	require.NoError(t, err)
	const count = 23
	rng := newRand(9)
	keys := randomKeys(rng, c, count)
	digests, _ := randomDigests(rng, count, allHashes)
	defer ecdsasign.SetStepItems(5)()
	boom := errors.New("boom")
	for _, failAt := range []int{0, 3} {
		var calls, returned atomic.Int32
		var mu sync.Mutex
		var sizes []int
		fourth := make(chan struct{})
		ct := ctecBase(t, c, nil)
		base := func(ctx context.Context, xs []byte, ok []bool, ks []byte) error {
			defer returned.Add(1)
			call := calls.Add(1)
			switch call {
			case 1:
				select {
				case <-fourth:
				case <-time.After(10 * time.Second):
					t.Error("no fourth k·G call began while the first ran")
				}
			case 4:
				close(fourth)
			case 5:
				if returned.Load() == 0 {
					t.Error("a fifth k·G call began before any returned")
				}
			}
			mu.Lock()
			sizes = append(sizes, len(ok))
			mu.Unlock()
			if call == int32(failAt) {
				return boom
			}
			return ct(ctx, xs, ok, ks)
		}
		sigs, errs := make([]byte, count*2*c.ByteLen()), make([]error, count)
		err := s.Sign(context.Background(), sigs, errs, digests, keys, base, ecdsasign.Options{})
		if failAt == 0 {
			require.NoError(t, err)
			require.ElementsMatch(t, []int{5, 5, 5, 4, 4}, sizes, "a call per step, the steps equal")
			whole, _ := signAll(t, c, digests, keys, ecdsasign.Options{})
			for i := range count {
				require.NoError(t, errs[i])
				require.Equal(t, whole[i], sigs[2*i*c.ByteLen():2*(i+1)*c.ByteLen()], "item %d", i)
			}
			continue
		}
		require.ErrorIs(t, err, boom)
		require.Equal(t, make([]byte, len(sigs)), sigs)
		for i, e := range errs {
			require.ErrorContains(t, e, "not signed", "item %d", i)
		}
	}
}

// TestRampedSteps signs 41 items in steps of at most 8 ramped from 2: the
// k·G calls take 2, 4, then 8, 7, 7, 7, then 4, 2 items (on two devices 4,
// 8, then 9, 8, 8, then 4: at most 8 and from 2 items a device), and the
// signatures are those of one step for the whole batch.
func TestRampedSteps(t *testing.T) {
	c := curves.P256()
	s, err := ecdsasign.New(c)
	require.NoError(t, err)
	const count = 41
	rng := newRand(13)
	keys := randomKeys(rng, c, count)
	digests, _ := randomDigests(rng, count, allHashes)
	whole, _ := signAll(t, c, digests, keys, ecdsasign.Options{})
	defer ecdsasign.SetStepItems(8)()
	defer ecdsasign.SetRampItems(2)()
	var sizes []int
	ct := ctecBase(t, c, nil)
	var mu sync.Mutex
	base := func(ctx context.Context, xs []byte, ok []bool, ks []byte) error {
		mu.Lock()
		sizes = append(sizes, len(ok))
		mu.Unlock()
		return ct(ctx, xs, ok, ks)
	}
	for _, devices := range []struct {
		n     int
		sizes []int
	}{
		{0, []int{2, 4, 8, 7, 7, 7, 4, 2}},
		{1, []int{2, 4, 8, 7, 7, 7, 4, 2}},
		{2, []int{4, 8, 9, 8, 8, 4}}, // steps of 2 to 8 items a device
	} {
		sizes = nil
		sigs, errs := make([]byte, count*2*c.ByteLen()), make([]error, count)
		require.NoError(t, s.Sign(context.Background(), sigs, errs, digests, keys, base, ecdsasign.Options{Devices: devices.n}))
		require.ElementsMatch(t, devices.sizes, sizes, "%d devices", devices.n)
		for i := range count {
			require.NoError(t, errs[i])
			require.Equal(t, whole[i], sigs[2*i*c.ByteLen():2*(i+1)*c.ByteLen()], "item %d", i)
		}
	}
}

// TestEmptyBatch: a batch of no items signs nothing and calls neither k·G
// nor FirstSign.
func TestEmptyBatch(t *testing.T) {
	c := curves.P256()
	s, err := ecdsasign.New(c)
	require.NoError(t, err)
	called := false
	base := func(context.Context, []byte, []bool, []byte) error { called = true; return nil }
	first := func(context.Context, ecdsasign.FirstItems, ecdsasign.Place) (bool, error) {
		called = true
		return true, nil
	}
	require.NoError(t, s.Sign(context.Background(), nil, nil, nil, nil, base, ecdsasign.Options{FirstSign: first}))
	require.False(t, called)
}
