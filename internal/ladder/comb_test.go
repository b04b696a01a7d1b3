package ladder

import (
	"math/big"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/race"
	"github.com/rnsec/ecmul/internal/rns"
)

// combKinds are the combs, each tested as the other.
var combKinds = []Kind{Comb, CombVarTime}

// combScalars returns the edge scalars of comb kind kind below n and a few
// random ones: 0, 1, every w-bit value of the lowest and highest window
// (every signed digit's magnitude and sign; on windows over 6 bits every
// 17th one and the last), n − 1, n − 2, 2^(wi) and 2^(wi) − 1 for several
// i, all bits 1 below n's top one, and random values.
func combScalars(kind Kind, n *big.Int, rng *rand.Rand, random int) []*big.Int {
	one := big.NewInt(1)
	ks := []*big.Int{big.NewInt(0), one, new(big.Int).Sub(n, one), new(big.Int).Sub(n, big.NewInt(2))}
	w := kind.CombWindow()
	top := (kind.CombWindows(n) - 1) * w
	step := int64(1)
	if w > 6 {
		step = 17
	}
	for d := int64(1); d < 1<<w; d += step {
		for _, d := range []int64{d, 1<<w - 1} {
			ks = append(ks, big.NewInt(d))
			if v := new(big.Int).Lsh(big.NewInt(d), uint(top)); v.Cmp(n) < 0 {
				ks = append(ks, v)
			}
		}
	}
	for i := 1; i*w < n.BitLen(); i += 7 {
		p := new(big.Int).Lsh(one, uint(i*w))
		ks = append(ks, p, new(big.Int).Sub(p, one))
	}
	ks = append(ks, new(big.Int).Sub(new(big.Int).Lsh(one, uint(n.BitLen()-1)), one))
	for range random {
		b := make([]byte, (n.BitLen()+7)/8)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		ks = append(ks, new(big.Int).Mod(new(big.Int).SetBytes(b), n))
	}
	return ks
}

func TestCombTableRows(t *testing.T) {
	for _, kind := range combKinds {
		for _, c := range curves.All() {
			testCombTableRows(t, kind, c)
		}
	}
}

func testCombTableRows(t *testing.T, kind Kind, c *curves.Curve) {
	su, err := NewSetupBits(c, kind, 30)
	if err != nil {
		t.Fatal(err)
	}
	w := kind.CombWindows(c.N())
	if su.comb.windows != w || len(su.CombTableWords()) != (w*kind.CombRows()+1)*combRowWords(su.Params.N) {
		t.Fatalf("%s %v: %d windows and %d words, want %d windows", c.Name(), kind, su.comb.windows, len(su.CombTableWords()), w)
	}
	rows, n := kind.CombRows(), su.Params.N
	residues := func(row []uint32, off int) *big.Int { // the value of x's (off 0) or y's (off 2) B residues
		b := make([]uint32, n)
		for r := range n {
			b[r] = row[4*r+off]
		}
		return su.Params.FromRNS(b)
	}
	coord := func(row []uint32, off int) *big.Int { return su.Params.FromMont(residues(row, off)) }
	for _, i := range []int{0, 1, w / 2, w - 1} {
		for _, d := range []int{1, 2, 3, rows / 2, rows - 1, rows} {
			k := new(big.Int).Lsh(big.NewInt(int64(d)), uint(i*kind.CombWindow()))
			x, y, ok, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), k)
			if err != nil || !ok {
				t.Fatalf("%s: reference %v: %v", c.Name(), k, err)
			}
			row := su.comb.row(i, d)
			if coord(row, 0).Cmp(x) != 0 || coord(row, 2).Cmp(y) != 0 {
				t.Fatalf("%s %v: row %d of window %d is not %d·2^%d·G", c.Name(), kind, d, i, d, i*kind.CombWindow())
			}
		}
	}
	last := su.CombTableWords()[w*rows*combRowWords(n):]
	if residues(last, 2).Cmp(c.P()) != 0 {
		t.Fatalf("%s %v: the row after the last window does not hold p", c.Name(), kind)
	}
}

// TestCombOracleAndTwin runs both combs on the math/big oracle and the RNS
// twin for edge and random scalars on every curve and channel width: the
// twin's outputs equal the oracle's mod p, and both finishes give the
// reference k·G.
func TestCombOracleAndTwin(t *testing.T) {
	race.SkipSerial(t)
	rng := rand.New(rand.NewPCG(7, 27))
	random := 6
	if testing.Short() {
		random = 2
	}
	for _, kind := range combKinds {
		for _, c := range curves.All() {
			for _, bits := range rns.Widths {
				testCombOracleAndTwin(t, kind, c, bits, combScalars(kind, c.N(), rng, random))
			}
		}
	}
}

func testCombOracleAndTwin(t *testing.T, kind Kind, c *curves.Curve, bits int, ks []*big.Int) {
	su, err := NewSetupBits(c, kind, bits)
	if err != nil {
		t.Fatal(err)
	}
	o, e := su.NewOracle(), su.NewRNSExecutor(0)
	p := c.P()
	jobs := make([]Job, len(ks))
	outs := make([]Channels, len(ks))
	for i, k := range ks {
		want := o.RunComb(k, nil)
		outs[i] = e.RunComb(k, nil)
		got := su.Outputs(outs[i])
		for v := range want {
			if new(big.Int).Mod(got[v], p).Cmp(new(big.Int).Mod(want[v], p)) != 0 {
				t.Fatalf("%s c%d k=%v: output %d: twin %v, oracle %v", c.Name(), bits, k, v, got[v], want[v])
			}
		}
		if jobs[i], err = su.Prepare(c.Gx(), c.Gy(), k); err != nil {
			t.Fatal(err)
		}
	}
	res, errs := su.Finish(jobs, outs)
	for i, k := range ks {
		if errs[i] != nil {
			t.Fatalf("%s c%d k=%v: %v", c.Name(), bits, k, errs[i])
		}
		x, y, ok, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), k)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case !ok && !res[i].Infinity:
			t.Fatalf("%s c%d k=%v: got (%x, %x), want the point at infinity", c.Name(), bits, k, res[i].X, res[i].Y)
		case ok && (res[i].Infinity || res[i].X.Cmp(x) != 0 || res[i].Y.Cmp(y) != 0):
			t.Fatalf("%s c%d k=%v: got %+v, want (%x, %x)", c.Name(), bits, k, res[i], x, y)
		}
	}
}

// TestCombDigitsSumToK checks the signed recoding against math/big: for
// edge and random scalars below n, the digits' magnitudes are at most
// CombRows, a zero digit is read as 0, the top digit is not negative, and
// Σ ±|d_i|·2^(wi) is k.
func TestCombDigitsSumToK(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 55))
	for _, kind := range combKinds {
		for _, c := range curves.All() {
			n := c.N()
			w, windows := kind.CombWindow(), kind.CombWindows(n)
			for _, k := range combScalars(kind, n, rng, 200) {
				digits := newCombDigits(k, w, windows)
				sum := new(big.Int)
				for i := windows - 1; i >= 0; i-- {
					mag, neg := digits.digit(i)
					if mag > uint(kind.CombRows()) || neg > 1 || (i == windows-1 && neg == 1 && mag != 0) {
						t.Fatalf("%s %v, k = %v: window %d: digit %d, sign %d", c.Name(), kind, k, i, mag, neg)
					}
					d := big.NewInt(int64(mag))
					if neg == 1 {
						d.Neg(d)
					}
					sum.Lsh(sum, uint(w)).Add(sum, d)
				}
				if sum.Cmp(k) != 0 {
					t.Fatalf("%s %v: the digits of %v sum to %v", c.Name(), kind, k, sum)
				}
			}
		}
	}
}

// TestCombVarTimeHalvesWindows: the variable-time comb takes at most half
// the windows, so half the mixed additions, of the constant-time one
// (rounded up), as ScalarBaseMultVarTimeBytes' doc states.
func TestCombVarTimeHalvesWindows(t *testing.T) {
	for _, c := range curves.All() {
		ct, vt := Comb.CombWindows(c.N()), CombVarTime.CombWindows(c.N())
		require.LessOrEqual(t, vt, (ct+1)/2, "%s: %d windows against %d", c.Name(), vt, ct)
	}
}

// TestProveCombRefuses: too few windows for the sign bit fail the proof.
func TestProveCombRefuses(t *testing.T) {
	for _, kind := range combKinds {
		for _, c := range curves.All() {
			n, w := c.N(), kind.CombWindow()
			require.NoError(t, ProveComb(n, w, kind.CombWindows(n)), c.Name())
			short := n.BitLen() / w // windows·w <= bitlen(n)
			require.Error(t, ProveComb(n, w, short), c.Name())
			require.Error(t, ProveComb(n, 17, n.BitLen()/17+1), "a digit of 18 bits")
		}
	}
}

// TestProveCombTopByEnumeration checks ProveComb's top window against
// every scalar of small orders n: a k in [0, n) whose top digit d makes
// 2d·2^(w(W−1)) − k a positive multiple of n must be refused, and only
// such a k.
func TestProveCombTopByEnumeration(t *testing.T) {
	refused := 0
	for n := int64(3); n < 1200; n += 2 {
		for w := 2; w <= 5; w++ {
			bn := big.NewInt(n)
			windows := (bn.BitLen() + w) / w
			top := uint(w * (windows - 1))
			exists := false
			for k := int64(0); k < n && !exists; k++ {
				d := k >> top
				if top > 0 {
					d += (k >> (top - 1)) & 1
				}
				if m := 2*d<<top - k; d >= 1 && m > 0 && m%n == 0 {
					exists = true
				}
			}
			err := proveCombTop(bn, w, windows)
			require.Equal(t, exists, err != nil, "n = %d, %d windows of %d bits: %v", n, windows, w, err)
			if exists {
				refused++
			}
		}
	}
	require.Positive(t, refused, "no order refused: the check was not exercised")
}

// TestCombTableShared: Setups of one curve, width and comb made at once
// share one table, made once a process (docs/library.md); another width or
// comb has its own.
func TestCombTableShared(t *testing.T) {
	c := curves.P224()
	setups := make([]*Setup, 4)
	var g errgroup.Group
	for i := range setups {
		g.Go(func() (err error) {
			setups[i], err = NewSetupBits(c, CombVarTime, rns.WideChannelBits)
			return err
		})
	}
	require.NoError(t, g.Wait())
	for _, su := range setups[1:] {
		require.Same(t, setups[0].comb, su.comb)
	}
	other, err := NewSetupBits(c, Comb, rns.WideChannelBits)
	require.NoError(t, err)
	require.NotSame(t, setups[0].comb, other.comb)
	require.Equal(t, Comb.CombWindows(c.N()), other.comb.windows)
	require.Equal(t, CombVarTime.CombWindows(c.N()), setups[0].comb.windows)
}

// TestCombWindowsAsDocumented: the windows and table sizes that
// docs/library.md, internal/kernels/README.md and CombVarTimeWindow's doc
// give: 18 and 20 variable-time windows of 13 bits against 45 and 52 of
// the constant-time comb, and tables of about 11 MB (P-224) and 13 MB
// (P-256) on 30-bit channels.
func TestCombWindowsAsDocumented(t *testing.T) {
	require.Equal(t, 13, CombVarTimeWindow)
	for _, cfg := range []struct {
		c          *curves.Curve
		vt, ct     int
		mbLo, mbHi float64
	}{{curves.P224(), 18, 45, 10.5, 11.5}, {curves.P256(), 20, 52, 12.5, 13.5}, {curves.Secp256k1(), 20, 52, 12.5, 13.5}} {
		require.Equal(t, cfg.vt, CombVarTime.CombWindows(cfg.c.N()), cfg.c.Name())
		require.Equal(t, cfg.ct, Comb.CombWindows(cfg.c.N()), cfg.c.Name())
		su, err := NewSetupBits(cfg.c, CombVarTime, rns.WideChannelBits)
		require.NoError(t, err)
		mb := float64(4*len(su.CombTableWords())) / 1e6
		require.True(t, mb >= cfg.mbLo && mb <= cfg.mbHi, "%s: a table of %.2f MB", cfg.c.Name(), mb)
	}
}

// TestCombTableHeap: a table holds its words and little else, as
// combTables' doc and docs/library.md say: P-256's variable-time table on 30-bit channels
// keeps about 13 MB of heap (once 47 MB, with its points in math/big and
// a slice per residue set).
func TestCombTableHeap(t *testing.T) {
	c := curves.P256()
	su, err := NewSetupBits(c, CombVarTime, rns.WideChannelBits)
	require.NoError(t, err)
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	table, err := newCombTable(c, su.Params, CombVarTimeWindow, CombVarTime.CombWindows(c.N()))
	require.NoError(t, err)
	kept := float64(heap()-before) / 1e6
	words := float64(4*len(table.words)) / 1e6
	runtime.KeepAlive(table)
	require.InDelta(t, 13.1, words, 0.1)
	require.Less(t, kept, words+1, "a table of %.1f MB of words keeps %.1f MB of heap", words, kept)
}

// TestCombTableKept: a comb's table outlives the Setups that use it, as
// docs/library.md says: with none left and the heap collected, the process
// still holds it, and the next Setup takes it without making it again.
func TestCombTableKept(t *testing.T) {
	c := curves.P224()
	su, err := NewSetupBits(c, Comb, rns.ChannelBits)
	require.NoError(t, err)
	key := combTableKey{c.Name(), su.Params.Bits, Comb.CombWindow(), Comb.CombWindows(c.N())}
	su = nil
	runtime.GC()
	runtime.GC()
	v, ok := combTables.Load(key)
	require.True(t, ok, "the table was dropped")
	kept := v.(*combTableOnce).t
	require.NotNil(t, kept)
	again, err := NewSetupBits(c, Comb, rns.ChannelBits)
	require.NoError(t, err)
	require.Same(t, kept, again.comb)
}

// TestCombSkipsFirstAddition: runComb runs Loop at every window but the
// first, as the kernel's comb_windows does (internal/kernels/README.md):
// window 0's sum is never committed.
func TestCombSkipsFirstAddition(t *testing.T) {
	for _, kind := range combKinds {
		c := curves.P256()
		su, err := NewSetupBits(c, kind, rns.WideChannelBits)
		require.NoError(t, err)
		windows := kind.CombWindows(c.N())
		loops := make(map[int]int)
		su.NewOracle().RunComb(big.NewInt(12345), func(phase Phase, window, _ int) {
			if phase == PhaseLoop {
				loops[window]++
			}
		})
		require.Len(t, loops, kind.CombAdditions(c.N()), kind)
		require.NotContains(t, loops, 0, "%v: window 0 runs no addition", kind)
		for i := 1; i < windows; i++ {
			require.Equal(t, len(su.Schedule.Loop), loops[i], "%v window %d", kind, i)
		}
	}
}
