package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/big"
	"text/tabwriter"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/rns"
)

const paramsHelp = `Usage: ecmul params [--curve p224|p256|secp256k1] [--schedule coz|paper] [--channel-bits 30|16]

Derives the RNS system for the curve's prime and proves it: the moduli 2^w − c
of the bases B and B̃ for the channel width w (--channel-bits; for 30-bit
channels B̃ ends with 2^30, c = 0), n (channels per base), the dynamic
ranges, the Shenoy redundant modulus m_e, for 30-bit channels the twist
σ_j of B (primes m_j whose −(p·M_j)^{-1} is a square σ_j²: B's residues are
stored times σ_j, which saves a product per channel) and,
for 16-bit channels only, the Kawamura β = Φ/2^16; then every inequality the
algorithm relies on with its two sides (as bit lengths) and whether it holds;
then the ladder schedule chosen: its reductions per bit, the largest
multiplication input it can produce (proved below 9u), and for the co-Z ladder
the proof that its ladder scalars avoid every exceptional case but k ≡ 0 and
k ≡ −1 (mod n); then the fixed-base comb of k·G for the curve and channel
width: its windows, the size of its table as uploaded, its multiplications
per window and in all, its largest multiplication input (proved below 9u)
and the proof that its mixed additions meet no exceptional case for k < n;
last, what ECDSA signing on the GPU relies on mod n (x < p < 2n, n odd,
prime and between 2^64 and 2^256). Exit status 1 if any bound fails, 2 for
usage errors.

Flags:
`

// paramsFlags are the settings of params.
type paramsFlags struct {
	curve, schedule string
	channelBits     int
}

func paramsFlagSet(f *paramsFlags) *flag.FlagSet {
	fs := newFlagSet("params", paramsHelp)
	fs.StringVar(&f.curve, "curve", "p224", "curve: p224, p256 or secp256k1")
	fs.StringVar(&f.schedule, "schedule", ladder.DefaultKind.String(), "ladder schedule: coz (Hamburg's co-Z ladder) or paper (Table I of the paper)")
	fs.IntVar(&f.channelBits, "channel-bits", rns.WideChannelBits, "RNS channel width: 30 (moduli 2^30 − c) or 16 (moduli 2^16 − c, the paper's)")
	return fs
}

func runParams(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var f paramsFlags
	if code, ok := parseFlags(paramsFlagSet(&f), args, stdout, stderr); !ok {
		return code
	}
	c, err := curves.ByName(f.curve)
	if err != nil {
		return report(stderr, "params", exitUsage, flagNamed("--curve", err))
	}
	kind, err := parseSchedule(f.schedule)
	if err != nil {
		return report(stderr, "params", exitUsage, flagNamed("--schedule", err))
	}
	if err := checkChannelBits(f.channelBits, basext.Shenoy); err != nil {
		return report(stderr, "params", exitUsage, err)
	}
	su, err := ladder.NewSetupBits(c, kind, f.channelBits)
	if err != nil {
		return report(stderr, "params", exitFail, err)
	}
	var combs []*ladder.Setup
	for _, kind := range []ladder.Kind{ladder.Comb, ladder.CombVarTime} {
		comb, err := ladder.NewSetupBits(c, kind, f.channelBits)
		if err != nil {
			return report(stderr, "params", exitFail, err)
		}
		combs = append(combs, comb)
	}
	if !printParams(stdout, su) {
		return report(stderr, "params", exitFail, errors.New("a bound fails"))
	}
	printSchedule(stdout, su)
	for _, comb := range combs {
		if !printComb(stdout, comb) {
			return report(stderr, "params", exitFail, errors.New("the comb's proof fails"))
		}
	}
	if !printSign(stdout, su) {
		return report(stderr, "params", exitFail, errors.New("the sign kernels' arithmetic fails"))
	}
	return exitOK
}

// printSign shows ProveSignArithmetic for su's curve: what the sign pack
// kernel's r and s rely on; it reports whether it holds.
func printSign(w io.Writer, su *ladder.Setup) bool {
	holds := "holds"
	err := ladder.ProveSignArithmetic(su.Params.P, su.Curve.N())
	if err != nil {
		holds = "NO: " + err.Error()
	}
	fmt.Fprintf(w, "\nECDSA signing on the GPU (the sign pack kernel): r = x(k·G) mod n by one masked subtraction, x < p < 2n;"+
		" k⁻¹ = k^(n−2) and s = k⁻¹(h1 + r·d) in Montgomery products mod n with R = 2^256, n odd, prime, 2^64 < n < 2^256: %s\n", holds)
	return err == nil
}

// printParams shows the RNS system of su and its bounds; it reports
// whether every bound holds.
func printParams(stdout io.Writer, su *ladder.Setup) bool {
	printSystem(stdout, su.Curve, su.Params)
	return printBounds(stdout, su.Params)
}

// printSystem shows the channels, the extensions' constants and both bases.
func printSystem(stdout io.Writer, c *curves.Curve, p *rns.Params) {
	fmt.Fprintf(stdout, "curve %s: p has %d bits\n", c.Name(), p.P.BitLen())
	beta, delta := p.KawamuraBeta()
	bf, _ := beta.Float64()
	df, _ := delta.Float64()
	if p.Kawamura() {
		fmt.Fprintf(stdout, "n = %d channels of %d bits per base, m_e = 2^%d = %d, Kawamura Φ = %d (β = Φ/2^16 = %.6f, worst error Δ = %.6f, q = %d kept bits)\n",
			p.N, p.Bits, p.MeBits, p.Me(), p.Phi, bf, df, rns.KawamuraBits)
	} else {
		fmt.Fprintf(stdout, "n = %d channels of %d bits per base, m_e = 2^%d = %d (its residue only: α comes from the ξ̃'s top bits, \"pair α\" below; B̃ ends with 2^30, c = 0)\n",
			p.N, p.Bits, p.MeBits, p.Me())
	}
	fmt.Fprintf(stdout, "u = (n+2)·p has %.3f bits; multiplication inputs stay below 9u (%.3f bits)\n",
		log2(p.U), log2(p.AddBound))
	fmt.Fprintln(stdout)
	for _, b := range []struct {
		name string
		mods []uint32
		cs   []uint32
		m    *big.Int
		fold int
	}{
		{"B", moduli(p.B.Moduli), p.B.Cs(), p.B.M, p.B.MaxFolds()},
		{"B̃", moduli(p.BT.Moduli), p.BT.Cs(), p.BT.M, p.BT.MaxFolds()},
	} {
		fmt.Fprintf(stdout, "base %s: log2 M = %.3f, %d folds per reduction\n", b.name, log2(b.m), b.fold)
		fmt.Fprintf(stdout, "  c:       %v\n  moduli:  %v\n", b.cs, b.mods)
	}
	if p.Twisted() {
		fmt.Fprintf(stdout, "  twist σ: %v (B residues stored as x·σ_j, σ_j² ≡ −(p·M_j)^{-1} mod m_j)\n", p.Twist)
	}
}

// printBounds shows every bound of p with its two sides; it reports whether
// they all hold.
func printBounds(stdout io.Writer, p *rns.Params) bool {
	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "bound\tleft\t\tright\tholds\twhy\n")
	failed := 0
	for _, b := range p.Bounds() {
		ok := "yes"
		if !b.Holds() {
			ok, failed = "NO", failed+1
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", b.Name, size(b.Left), b.Rel, size(b.Right), ok, b.Why)
	}
	tw.Flush()
	if err := p.Verify(); err != nil || failed > 0 {
		return false
	}
	fmt.Fprintf(stdout, "\nall %d bounds hold\n\n", len(p.Bounds()))
	return true
}

// printSchedule shows the ladder schedule and what NewSetupKind proved of it
// (a schedule or scalar rule that fails its proof never gets this far).
func printSchedule(w io.Writer, su *ladder.Setup) {
	s, p := su.Schedule, su.Params
	fmt.Fprintf(w, "schedule %s: %d iterations\n", s.Kind, su.Bits)
	fmt.Fprintf(w, "reductions per bit: %d\n", s.MulsPerBit())
	lazy, adds := s.LazyPerBit()
	fmt.Fprintf(w, "additions per bit: %d, %d of them lazy (the pair mapping leaves their sums, below 2^32, unreduced: only products read them)\n", adds, lazy)
	printMulInput(w, s, p)
	if s.Kind == ladder.CoZ {
		fmt.Fprintf(w, "ladder scalars k mod n + 3n (+ 2n when k mod n >= n − 4): no prefix meets Q = O, R = O or Q = −R\n"+
			"  unless k ≡ 0 or −1 (mod n): holds; those two take the fixed results O and −G\n")
	}
}

// printMulInput shows the largest multiplication input NewSchedule proved
// for s against 9u.
func printMulInput(w io.Writer, s *ladder.Schedule, p *rns.Params) {
	top := new(big.Int).Add(s.MaxMulInput, big.NewInt(1))
	if top.Cmp(p.AddBound) == 0 {
		fmt.Fprintf(w, "largest multiplication input 9u − 1 (9u = %s): holds, the bound is reached\n", size(p.AddBound))
	} else {
		fmt.Fprintf(w, "largest multiplication input below %s, 9u = %s: holds\n", size(top), size(p.AddBound))
	}
}

// printComb shows the fixed-base comb of su (a Setup of ladder.Comb or
// ladder.CombVarTime): its windows, its table as the kernel gets it, its
// multiplications per window and in all, its largest multiplication input
// and ProveComb's exactness argument; it reports whether the proof holds
// (NewSetupBits has checked it already).
func printComb(w io.Writer, su *ladder.Setup) bool {
	s, p, n := su.Schedule, su.Params, su.Curve.N()
	bits, rows, windows := s.Kind.CombWindow(), s.Kind.CombRows(), s.Kind.CombWindows(n)
	table := len(su.CombTableWords()) * 4
	title := "fixed-base comb k·G"
	if s.Kind == ladder.CombVarTime {
		title += ", variable time (public scalars: ECDSA's u1·G)"
	}
	fmt.Fprintf(w, "\n%s: %d windows × %d bits\n", title, windows, bits)
	fmt.Fprintf(w, "table: %d rows per window, %d rows, %d bytes as uploaded\n", rows, windows*rows, table)
	fmt.Fprintf(w, "multiplications per window: %d, none in the first (its row starts the accumulator): %d in all\n",
		s.MulsPerBit(), s.Kind.CombAdditions(n)*s.MulsPerBit())
	printMulInput(w, s, p)
	holds := "holds"
	err := ladder.ProveComb(n, bits, windows)
	if err != nil {
		holds = "NO: " + err.Error()
	}
	fmt.Fprintf(w, "no exceptional case for k < n: %d·%d > %d bits (the top digit >= 0); before window i the accumulator S, |S| <= 2^(%d·i−1),"+
		" is not ±T = ±d·2^(%d·i) (1 <= |d| <= %d) as integers, S + T is the next accumulator (below n, or k), S − T is below n in size"+
		" below the top window and no k < n makes it −jn at the top one, O is replaced by the row: %s\n",
		windows, bits, n.BitLen(), bits, bits, rows, holds)
	return err == nil
}

func moduli(ms []rns.Modulus) []uint32 {
	out := make([]uint32, len(ms))
	for i, m := range ms {
		out[i] = m.M
	}
	return out
}

// log2 returns log2(x) for x > 0, to about 15 significant digits.
func log2(x *big.Int) float64 {
	if x.Sign() <= 0 {
		return math.Inf(-1)
	}
	mant := new(big.Float).SetInt(x)
	exp := mant.MantExp(mant)
	m, _ := mant.Float64()
	return float64(exp) + math.Log2(m)
}

// size prints small integers exactly and large ones as a power of two.
func size(x *big.Int) string {
	if x.BitLen() <= 32 {
		return x.String()
	}
	return fmt.Sprintf("2^%.3f", log2(x))
}

const devicesHelp = `Usage: ecmul devices

Lists the CUDA devices (ordinal, name, compute capability, SMs, memory,
clock, whether ecmul's kernels load there) and the driver version.
Exit status 1 when there is no CUDA device, 2 for usage errors.
`

func devicesFlagSet() *flag.FlagSet { return newFlagSet("devices", devicesHelp) }

func runDevices(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if code, ok := parseFlags(devicesFlagSet(), args, stdout, stderr); !ok {
		return code
	}
	d, err := gpu.DefaultDriver()
	if err != nil {
		return report(stderr, "devices", exitFail, err)
	}
	image, err := gpu.KernelImage()
	if err == nil {
		err = listDevices(stdout, d, image)
	}
	if err != nil {
		return report(stderr, "devices", exitFail, err)
	}
	return exitOK
}

// listDevices writes the driver version and one line per device, ending
// in whether ecmul's kernels load there.
func listDevices(w io.Writer, d gpu.Driver, image []byte) error {
	devs, version, err := gpu.Devices(d)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "CUDA driver %s\n", gpu.FormatDriverVersion(version))
	for _, dev := range devs {
		loads := "kernels load"
		if err := gpu.LoadsImage(d, dev.Ordinal, image); err != nil {
			loads = "kernels do not load: " + err.Error()
		}
		fmt.Fprintf(w, "%s, %s\n", dev, loads)
	}
	return nil
}
