package ladder

import (
	"fmt"
	"math/big"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/rns"
)

// CombWindow is the number of scalar bits one window of the fixed-base comb
// covers. Its digits are signed (Booth's recoding): d_i = v_i + b_(wi−1) −
// 2^w·b_(wi+w−1), with v_i the window's w bits and b_j bit j of k (b_−1 =
// 0), so that |d_i| <= 2^(w−1) and the table holds 2^(w−1) multiples of G
// per window, the sign applied to the row's y. A window of 5 bits takes a
// fifth fewer mixed additions than one of 4; every row of a window is read
// for each digit, so wider ones cost more reads than they save.
const CombWindow = 5

// CombVarTimeWindow is the window of CombVarTime, the comb for public
// scalars: it reads one row per window, at the digit's address, so a wide
// window costs table space alone: 13-bit windows take 17 mixed additions
// for P-224 and 19 for the 256-bit curves (one a window but the first),
// against 22 and 25 of 10-bit ones, from a table of 4,096 rows per window
// (13 MB for P-256 on 30-bit channels, which the 40 to 50 MB L2 of an
// A100, H100 or H200 holds).
const CombVarTimeWindow = 13

// maxCombWindow bounds a comb's window: the w + 1 bits a digit is read from
// lie in three bytes of the CPU twin's scalar and in two 32-bit words of
// the kernel's.
const maxCombWindow = 16

// CombWindow returns the window of comb kind k in bits, 0 for a ladder.
func (k Kind) CombWindow() int {
	switch k {
	case Comb:
		return CombWindow
	case CombVarTime:
		return CombVarTimeWindow
	}
	return 0
}

// CombRows returns the table rows per window of comb kind k: |d| = 1 …
// 2^(w−1) (the digit 0 has none).
func (k Kind) CombRows() int { return 1 << (k.CombWindow() - 1) }

// CombWindows returns the windows of comb kind k for scalars below n: they
// cover bitlen(n) + 1 bits, so that the top window's sign bit is 0 and the
// signed digits sum to k.
func (k Kind) CombWindows(n *big.Int) int {
	w := k.CombWindow()
	return (n.BitLen() + w) / w
}

// CombAdditions returns the mixed additions of comb kind k for scalars
// below n: one a window but the first, where the accumulator is the point
// at infinity and the window's row starts it (runComb).
func (k Kind) CombAdditions(n *big.Int) int { return k.CombWindows(n) - 1 }

// Commit sets Dst after a comb window: Dst itself when the window's digit is
// 0, Start when the accumulator is still the point at infinity, else Sum.
type Commit struct{ Dst, Sum, Start Reg }

// comb returns the fixed-base schedule: k·G = Σ d_i·2^(wi)·G over the
// windows i of w bits (Kind.CombWindow), signed digits |d_i| <= 2^(w−1), each
// term a table row T[i][|d_i|] = |d_i|·2^(wi)·G in affine form (TX, TY), y
// negated for d_i < 0, added to the
// projective accumulator (AX : AY : AZ) by a mixed addition of 11
// multiplications (Cohen, Miyaji and Ono, 1998):
//
//	u = TY·AZ − AY, v = TX·AZ − AX, R = v²·AX, A = u²·AZ − v³ − 2R
//	AX' = v·A, AY' = u·(R − A) − v³·AY, AZ' = v³·AZ
//
// The sum is wrong only when the accumulator is ±T or the point at
// infinity. ProveComb shows that for k < n the first two never happen; the
// third is the accumulator before the first nonzero digit, which Commit
// replaces by the row itself (Start: TX, TY, 1̄), as it keeps the
// accumulator for a zero digit. Both are chosen by masks of the digit.
//
// Init sets the accumulator to (0 : 0 : 0), which stays the result of k ≡ 0
// (the finish gives the point at infinity for it, as for the co-Z ladder),
// and ONE to 1̄. The outputs are those of the co-Z ladder's finish with no
// factor y_G: the denominator AZ and the numerators AX, AY.
func comb() (init, loop []Step, commit []Commit) {
	init = []Step{{Adds: []AddOp{{Dst: AX}, {Dst: AY}, {Dst: AZ}, {Dst: ONE, Mont: []MontTerm{{1, constOne}}}}}}
	loop = []Step{
		{ // A = TY·AZ, B = TX·AZ; C = u, D = v
			Muls: []MulOp{{A, TY, AZ}, {B, TX, AZ}},
			Adds: []AddOp{{Dst: C, Terms: []Term{t(1, A), t(-1, AY)}}, {Dst: D, Terms: []Term{t(1, B), t(-1, AX)}}},
		},
		{ // E = u², F = v²
			Muls: []MulOp{{E, C, C}, {F, D, D}},
		},
		{ // E = u²·AZ, H = v³, F = R; A = u²·AZ − v³ − 2R, B = R − A
			Muls: []MulOp{{E, E, AZ}, {H, F, D}, {F, F, AX}},
			Adds: []AddOp{
				{Dst: A, Terms: []Term{t(1, E), t(-1, H), t(-2, F)}},
				{Dst: B, Terms: []Term{t(3, F), t(-1, E), t(1, H)}},
			},
		},
		{ // A = AX', E = AZ', B = u·(R − A), H = v³·AY; C = AY'
			Muls: []MulOp{{A, D, A}, {E, H, AZ}, {B, C, B}, {H, H, AY}},
			Adds: []AddOp{{Dst: C, Terms: []Term{t(1, B), t(-1, H)}}},
		},
	}
	commit = []Commit{{AX, A, TX}, {AY, C, TY}, {AZ, E, ONE}}
	return init, loop, commit
}

// combDigits holds a scalar below 2^(w·windows) as fixed-length big-endian
// bytes, so that reading a digit of w-bit windows takes the same steps
// whatever k is (big.Int.Bit would stop early past a small k's last word).
type combDigits struct {
	buf [64]byte
	b   []byte
	w   int
}

func newCombDigits(k *big.Int, w, windows int) *combDigits {
	c := &combDigits{w: w}
	c.b = c.buf[:(windows*w+7)/8]
	k.FillBytes(c.b)
	return c
}

// digit returns window i's signed digit as its magnitude and its sign (1
// for a negative digit), from bits wi − 1 … wi + w of k, read from the byte
// holding the lowest and the two next ones up where there are (which bytes
// depends on i alone); the magnitude and sign are taken by masks.
func (c *combDigits) digit(i int) (mag, neg uint) {
	w := uint(c.w)
	bit := i*c.w - 1 // the bit below the window; −1 reads as 0
	var v uint
	if i == 0 {
		v = c.from(len(c.b)-1) << 1
	} else {
		v = c.from(len(c.b)-1-bit/8) >> (bit % 8)
	}
	v &= 1<<(w+1) - 1
	raw := v>>1 + v&1
	neg = v >> w
	m := -neg
	return (1<<w-raw)&m | raw&^m, neg
}

// from returns the byte at index at and the two above it in value (at−1,
// at−2; those before the first byte read as 0) as one little-endian word.
func (c *combDigits) from(at int) uint {
	var v uint
	for j := range 3 {
		if at-j >= 0 {
			v |= uint(c.b[at-j]) << (8 * j)
		}
	}
	return v
}

// digitMask returns 1 when d == e, else 0, without a branch.
func digitMask(d, e uint) uint { return uint((uint64(d^e) - 1) >> 63) }

// ProveComb checks what the comb's exactness rests on, for scalars k in
// [0, n). The windows cover bitlen(n) + 1 bits, so the top window's sign
// bit is 0 and Σ d_i·2^(wi) = k. Before window i the accumulator is S_i·G
// with S_i = (k mod 2^(wi)) − 2^(wi)·b_(wi−1), so |S_i| <= 2^(wi−1), and the
// row is T = d·2^(wi), 1 <= |d| <= 2^(w−1), so |S_i| < |T| and S_i ≠ ±T
// as integers; S_i = 0 only while every lower digit is 0 (Commit takes the
// row itself then). S_i + T = S_(i+1) is 0 (mod n) only if it is a nonzero
// multiple of n, but |S_(i+1)| <= 2^(w(i+1)−1) < n below the top window and
// S_W = k < n. S_i − T is a nonzero multiple of n only if
// |S_i − T| >= n: ProveComb checks (2^(w−1) + 1/2)·2^(wi) < n for every
// window below the top one, and for the top one, whose digit d >= 0 is its
// bits plus the bit below it, every k = 2d·2^(w(W−1)) − j·n (j >= 1) in
// [0, n): none may have the top digit d. Those are the only exceptional
// cases of the mixed addition.
func ProveComb(n *big.Int, w, windows int) error {
	if w < 1 || w > maxCombWindow {
		return fmt.Errorf("ladder: a comb digit's %d bits span more than three bytes (or two of the kernel's 32-bit words)", w+1)
	}
	if windows*w <= n.BitLen() {
		return fmt.Errorf("ladder: %d comb windows of %d bits do not cover %d-bit scalars and a zero sign bit", windows, w, n.BitLen())
	}
	if windows*w > 8*len(combDigits{}.buf) {
		return fmt.Errorf("ladder: %d comb windows of %d bits exceed the %d-byte digit buffer", windows, w, len(combDigits{}.buf))
	}
	for i := range windows - 1 {
		// (2^w + 1)·2^(wi−1) < n, and for the next window's S_(i+1) the same holds a fortiori
		b := new(big.Int).Lsh(big.NewInt(1<<w+1), uint(w*i))
		if b.Rsh(b, 1).Cmp(n) >= 0 {
			return fmt.Errorf("ladder: comb window %d of %d: |S − T| may reach n", i, windows)
		}
	}
	return proveCombTop(n, w, windows)
}

// proveCombTop is ProveComb's check of the top window: no k in [0, n) is
// 2d·2^(w(W−1)) − j·n, j >= 1, with top digit d.
func proveCombTop(n *big.Int, w, windows int) error {
	top := uint(w * (windows - 1))
	for d := int64(1); d <= 1<<(w-1); d++ {
		twoT := new(big.Int).Lsh(big.NewInt(2*d), top)
		if twoT.Cmp(n) < 0 {
			continue // no j >= 1 leaves 2T − j·n in [0, n)
		}
		k := new(big.Int).Mod(twoT, n) // the one 2T − j·n in [0, n)
		td := new(big.Int).Rsh(k, top).Int64()
		if top > 0 {
			td += int64(k.Bit(int(top) - 1)) // the bit below the window (b_−1 = 0)
		}
		if td == d {
			return fmt.Errorf("ladder: comb scalar %v: its top window's accumulator is its row", k)
		}
	}
	return nil
}

// combTable is the comb's precomputed multiples of G as the kernel reads
// them (Setup.CombTableWords): for window i and digit magnitude d, the
// RNS Montgomery forms of d·2^(wi)·G's affine x and y, then p's residues,
// which a row's y is negated from (p − y ≡ −y, for y < p). It holds the
// words alone, which the CPU twin reads too: no point is kept in math/big.
type combTable struct {
	windows, rows, n int      // windows, rows per window, channels per base
	words            []uint32 // combRowWords(n) per row, window after window; p's last
	p                rns.Element
}

// combRowWords returns the words of one row of the comb's table on n
// channels: four per channel role, x's B and B̃ residues and y's, and for
// the role of m_e x's residue, 0, y's, 0.
func combRowWords(n int) int { return 4 * (n + 1) }

// row returns the words of row d (1 … rows) of window i.
func (t *combTable) row(i, d int) []uint32 {
	at := (i*t.rows + d - 1) * combRowWords(t.n)
	return t.words[at : at+combRowWords(t.n)]
}

// putRow writes x and y (RNS Montgomery forms) as row words.
func putRow(words []uint32, x, y *rns.Element) {
	n := len(x.B)
	for r := range n {
		words[4*r], words[4*r+1], words[4*r+2], words[4*r+3] = x.B[r], x.BT[r], y.B[r], y.BT[r]
	}
	words[4*n], words[4*n+2] = x.E, y.E
}

// combTables holds every table made in this process, by curve, channel
// width and window (combTableKey), for the process's life: a table is only
// read once made, and making one takes a few hundred milliseconds on two
// cores (4,096 rows of 20 windows for P-256), which every Engine opened
// would otherwise spend again. The process keeps one table for each curve,
// channel width and comb it has used: the words the GPU reads, 13 MB for
// P-256's variable-time comb on 30-bit channels and 11 MB for P-224's
// (TestCombTableHeap).
var combTables sync.Map // combTableKey → *combTableOnce

type combTableKey struct {
	curve      string
	bits, w, n int
}

type combTableOnce struct {
	once sync.Once
	t    *combTable
	err  error
}

// combTableFor returns the table of windows of w bits for c on par, made
// once in the process.
func combTableFor(c *curves.Curve, par *rns.Params, w, windows int) (*combTable, error) {
	v, _ := combTables.LoadOrStore(combTableKey{c.Name(), par.Bits, w, windows}, new(combTableOnce))
	o := v.(*combTableOnce)
	o.once.Do(func() { o.t, o.err = newCombTable(c, par, w, windows) })
	return o.t, o.err
}

// newCombTable computes the rows of every window of w bits by affine
// additions in math/big and writes their RNS Montgomery forms, the
// windows on every core.
func newCombTable(c *curves.Curve, par *rns.Params, w, windows int) (*combTable, error) {
	rows := 1 << (w - 1)
	t := &combTable{windows: windows, rows: rows, n: par.N, p: par.NewElement()}
	t.words = make([]uint32, (windows*rows+1)*combRowWords(par.N))
	if err := par.ToRNS(&t.p, c.P()); err != nil {
		return nil, err
	}
	zero := par.NewElement() // p goes in y's places
	putRow(t.words[windows*rows*combRowWords(par.N):], &zero, &t.p)
	bases := make([][2]*big.Int, windows) // 2^(wi)·G
	bases[0] = [2]*big.Int{c.Gx(), c.Gy()}
	for i := 1; i < windows; i++ {
		bases[i] = bases[i-1]
		for range w {
			bases[i] = affineAdd(c, bases[i], bases[i])
		}
	}
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range windows {
		g.Go(func() error { return t.fillWindow(c, par, i, bases[i]) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return t, nil
}

// fillWindow writes window i's rows d·base, d = 1 … rows.
func (t *combTable) fillWindow(c *curves.Curve, par *rns.Params, i int, base [2]*big.Int) error {
	x, y := par.NewElement(), par.NewElement()
	pt := base
	for d := 1; d <= t.rows; d++ {
		if d > 1 {
			pt = affineAdd(c, pt, base)
		}
		if err := par.ToRNS(&x, par.ToMont(pt[0])); err != nil {
			return err
		}
		if err := par.ToRNS(&y, par.ToMont(pt[1])); err != nil {
			return err
		}
		putRow(t.row(i, d), &x, &y)
	}
	return nil
}

// affineAdd returns a + b for affine points with a ≠ −b (a = b doubles).
func affineAdd(c *curves.Curve, a, b [2]*big.Int) [2]*big.Int {
	p := c.P()
	var num, den *big.Int
	if a[0].Cmp(b[0]) == 0 {
		num = new(big.Int).Mul(a[0], a[0])
		num.Mul(num, big.NewInt(3)).Add(num, big.NewInt(c.A()))
		den = new(big.Int).Lsh(a[1], 1)
	} else {
		num = new(big.Int).Sub(b[1], a[1])
		den = new(big.Int).Sub(b[0], a[0])
	}
	den.Mod(den, p).ModInverse(den, p)
	lam := num.Mul(num, den).Mod(num, p)
	x := new(big.Int).Mul(lam, lam)
	x.Sub(x, a[0]).Sub(x, b[0]).Mod(x, p)
	y := new(big.Int).Sub(a[0], x)
	y.Mul(y, lam).Sub(y, a[1]).Mod(y, p)
	return [2]*big.Int{x, y}
}

// CombTableWords returns the table as the kernel reads it: for window i,
// digit magnitude d and channel role r (0 … n−1, then n for m_e), four
// words at ((i·rows + d−1)·(n+1) + r)·4 (rows: Kind.CombRows): x's B and B̃
// residues and y's, or for role n x's m_e residue, 0, y's, 0; then, at row
// windows·rows,
// p's residues in y's places (0, 0, B, B̃; for role n 0, 0, m_e, 0). The
// slice is the process's table (combTables): callers only read it.
func (su *Setup) CombTableWords() []uint32 {
	if su.comb == nil {
		return nil
	}
	return su.comb.words
}

// combExecutor is an executor that can run the comb.
type combExecutor interface {
	executor
	// loadRow sets TX, TY to row d of window i, or to zero for d = 0, and
	// negates TY when neg is 1.
	loadRow(i int, d, neg uint)
	// commit applies the commits: keep (1: the digit is 0) and start (1:
	// the accumulator is the point at infinity and the digit is not 0).
	commit(cs []Commit, keep, start uint)
}

// runComb walks the comb schedule for k < n: Init, then per window from
// the lowest its row, Loop (from window 1: window 0 adds to the point at
// infinity, whose sum Commit never takes) and Commit, then Final. What
// Commit keeps depends on the digit through masks only, and so does which
// row is loaded (but on CombVarTime, which reads the row at its address).
func runComb(e combExecutor, s *Schedule, k *big.Int, windows int, obs Observer) {
	steps := func(phase Phase, i int, sts []Step) {
		for j, st := range sts {
			e.mulSet(st.Muls)
			e.addSet(st.Adds)
			if obs != nil {
				obs(phase, i, j)
			}
		}
	}
	steps(PhaseInit, -1, s.Init)
	digits := newCombDigits(k, s.Kind.CombWindow(), windows)
	inf := uint(1)
	for i := range windows {
		d, neg := digits.digit(i)
		keep := digitMask(d, 0)
		e.loadRow(i, d, neg)
		if i > 0 {
			steps(PhaseLoop, i, s.Loop)
		}
		e.commit(s.Commit, keep, inf&^keep)
		inf &= keep
	}
	steps(PhaseFinal, -1, s.Final)
}

// RunComb computes k·G on the comb for k < n; the result holds the B
// residues of the schedule's outputs.
func (e *RNSExecutor) RunComb(k *big.Int, obs Observer) Channels {
	e.regs[KB].Set(&e.su.KB)
	runComb(e, e.su.Schedule, k, e.su.comb.windows, obs)
	out := make(Channels, len(e.su.Schedule.Out))
	for i, r := range e.su.Schedule.Out {
		out[i] = append([]uint32(nil), e.regs[r].B...)
	}
	return out
}

// loadRow reads every row of window i and keeps row d's by masks (on
// CombVarTime row d alone), then takes p − y for y where neg is 1, by a
// mask.
func (e *RNSExecutor) loadRow(i int, d, neg uint) {
	tx, ty, t := &e.regs[TX], &e.regs[TY], e.su.comb
	clearElement(tx)
	clearElement(ty)
	switch {
	case e.su.Schedule.Kind == CombVarTime && d > 0:
		orRowMasked(tx, ty, t.row(i, int(d)), ^uint32(0))
	case e.su.Schedule.Kind != CombVarTime:
		for r := 1; r <= t.rows; r++ {
			orRowMasked(tx, ty, t.row(i, r), -uint32(digitMask(d, uint(r))))
		}
	}
	par, p, ny := e.su.Params, &t.p, e.tmp[0]
	for j, m := range par.B.Moduli {
		ny.B[j] = m.Sub(p.B[j], ty.B[j])
	}
	for j, m := range par.BT.Moduli {
		ny.BT[j] = m.Sub(p.BT[j], ty.BT[j])
	}
	ny.E = (p.E - ty.E) & (par.Me() - 1)
	selectElement(ty, &ny, -uint32(neg))
}

// orRowMasked sets x |= row's x & m and y |= row's y & m, channel by
// channel (putRow's layout).
func orRowMasked(x, y *rns.Element, row []uint32, m uint32) {
	n := len(x.B)
	for r := range n {
		x.B[r] |= row[4*r] & m
		x.BT[r] |= row[4*r+1] & m
		y.B[r] |= row[4*r+2] & m
		y.BT[r] |= row[4*r+3] & m
	}
	x.E |= row[4*n] & m
	y.E |= row[4*n+2] & m
}

func (e *RNSExecutor) commit(cs []Commit, keep, start uint) {
	km, sm := -uint32(keep), -uint32(start)
	for _, c := range cs {
		dst := &e.regs[c.Dst]
		v := e.tmp[0]
		v.Set(&e.regs[c.Sum])
		selectElement(&v, &e.regs[c.Start], sm)
		selectElement(dst, &v, ^km)
	}
}

func clearElement(a *rns.Element) {
	clear(a.B)
	clear(a.BT)
	a.E = 0
}

// selectElement sets a = b where m is all ones, and leaves it where m is 0.
func selectElement(a, b *rns.Element, m uint32) {
	for j := range a.B {
		a.B[j] ^= (a.B[j] ^ b.B[j]) & m
	}
	for j := range a.BT {
		a.BT[j] ^= (a.BT[j] ^ b.BT[j]) & m
	}
	a.E ^= (a.E ^ b.E) & m
}
