// Command kernelvec writes test vectors for the CUDA kernel's standalone
// harness and CPU emulation (internal/kernels/harness): the constants,
// packed inputs and the outputs of the CPU RNS executor, which the kernel
// must reproduce bit for bit with every base extension (the executor runs
// each one the channels support, and they must agree).
//
// File format, little-endian uint32 words: magic 0x56434345, version 2, n,
// m_e bits, ladder bits t, scalar words W, items I, outputs per item V,
// constant words C; then the C constants, (2n+1)·I inputs, W·I scalars and
// V·n·I expected outputs, in the layouts of package ladder (row r of item i
// at r·I + i). The comb's inputs are zeros: its kernel reads none.
//
// With -finish it writes vectors for the finish kernel
// (internal/kernels/finish.cuh) instead, for the co-Z ladder or the comb:
// their format is in finish.go. With -prepare it writes vectors for the
// prepare kernel (internal/kernels/prepare.cuh), for the co-Z ladder or the
// comb: their format is in prepare.go. With -unpack and -pack it writes
// vectors for the wire kernels (internal/kernels/wire.cuh), for the co-Z
// ladder or the comb: their formats are in unpack.go and pack.go. With
// -verify it writes vectors for the verify kernel
// (internal/kernels/verify.cuh), after the co-Z ladder: verify.go. With
// -verifyunpack and -verifypack it writes vectors for the wire kernels of a
// verify batch (verify.cuh), on the co-Z ladder: their formats are in
// verifywire.go. With -signunpack and -signpack it writes vectors for the
// wire kernels of a signing batch (sign.cuh), on the comb: their formats
// are in signwire.go. With -break-base the ladder vectors of 30-bit channels
// carry the constants of a base the wide kernels refuse (B̃ not ending with
// 2^30, or B's residues not stored twisted), for the check that they trap.
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/par"
	"github.com/rnsec/ecmul/internal/rns"
)

func main() {
	curveName := flag.String("curve", "p224", "curve")
	schedule := flag.String("schedule", "default", "schedule: coz, paper, default, comb (k·G) or combvt (k·G, variable time)")
	channelBits := flag.Int("channel-bits", 16, "RNS channel width: 16 or 30")
	items := flag.Int("n", 1024, "items")
	seed := flag.Int64("seed", 1, "random seed")
	out := flag.String("out", "vectors.bin", "output file")
	finish := flag.Bool("finish", false, "write vectors of the finish kernel (schedule coz or comb)")
	prepare := flag.Bool("prepare", false, "write vectors of the prepare kernel (schedule coz or comb)")
	unpack := flag.Bool("unpack", false, "write vectors of the unpack kernel (schedule coz or comb)")
	pack := flag.Bool("pack", false, "write vectors of the pack kernel (schedule coz or comb)")
	verify := flag.Bool("verify", false, "write vectors of the verify kernel (schedule coz)")
	verifyUnpack := flag.Bool("verifyunpack", false, "write vectors of a verify batch's unpack kernel (schedule coz)")
	verifyPack := flag.Bool("verifypack", false, "write vectors of a verify batch's pack kernel (schedule coz)")
	signUnpack := flag.Bool("signunpack", false, "write vectors of a signing batch's unpack kernel (schedule comb)")
	signPack := flag.Bool("signpack", false, "write vectors of a signing batch's pack kernel (schedule comb)")
	brokenBase := flag.String("break-base", "", "ladder vectors of 30-bit channels whose constants are another base's, which a wide kernel must refuse: "+
		"top (B̃ ending with 2^30 − 1) or twist (B's residues not stored twisted)")
	flag.Parse()
	c, err := curves.ByName(*curveName)
	if err != nil {
		log.Fatal(err)
	}
	kind, err := ladder.ParseAnyKind(*schedule)
	if err != nil {
		log.Fatal(err)
	}
	su, err := ladder.NewSetupBits(c, kind, *channelBits)
	if err != nil {
		log.Fatal(err)
	}
	kernels := btoi(*finish) + btoi(*prepare) + btoi(*unpack) + btoi(*pack) + btoi(*verify) + btoi(*verifyUnpack) + btoi(*verifyPack) +
		btoi(*signUnpack) + btoi(*signPack)
	if *brokenBase != "" && (kernels > 0 || *channelBits != rns.WideChannelBits) {
		log.Fatal("-break-base: ladder vectors of 30-bit channels only")
	}
	if kernels > 1 {
		log.Fatal("-finish, -prepare, -unpack, -pack, -verify, -verifyunpack, -verifypack, -signunpack and -signpack: one kernel's vectors at a time")
	}
	switch {
	case *unpack:
		err = writeItemVectors(*out, su, c, *items, *seed, makeUnpack, unpackWords)
	case *pack:
		err = writeItemVectors(*out, su, c, *items, *seed, makePack, packWords)
	case *prepare:
		err = writeItemVectors(*out, su, c, *items, *seed, makePrepare, prepareWords)
	case *finish:
		err = writeItemVectors(*out, su, c, *items, *seed, makeFinish, finishWords)
	case *verify:
		err = writeItemVectors(*out, su, c, *items, *seed, makeVerify, verifyWords)
	case *verifyUnpack:
		err = writeItemVectors(*out, su, c, *items, *seed, makeVerifyUnpack, verifyUnpackWords)
	case *verifyPack:
		err = writeItemVectors(*out, su, c, *items, *seed, makeVerifyPack, verifyPackWords)
	case *signUnpack:
		err = writeItemVectors(*out, su, c, *items, *seed, makeSignUnpack, signUnpackWords)
	case *signPack:
		err = writeItemVectors(*out, su, c, *items, *seed, makeSignPack, signPackWords)
	default:
		err = writeLadderVectors(*out, su, c, *items, *seed, *brokenBase)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// btoi returns 1 for true and 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// makeVectors makes the parts of a vectors file of items items drawn from
// rng: makeFinish's, makePrepare's, makeUnpack's, makePack's, or the
// verify or signing batch's kernels'.
type makeVectors[V any] func(su *ladder.Setup, c *curves.Curve, items int, rng *rand.Rand) (V, error)

// writeItemVectors writes to path the vectors file of a kernel around the
// ladder: the parts that parts draws for items items from seed, as words
// lays them out.
func writeItemVectors[V any](path string, su *ladder.Setup, c *curves.Curve, items int, seed int64, parts makeVectors[V],
	words func(su *ladder.Setup, items int, v V) [][]uint32) error {
	v, err := parts(su, c, items, rand.New(rand.NewSource(seed)))
	if err != nil {
		return err
	}
	return writeWords(path, words(su, items, v))
}

// writeLadderVectors writes to path the ladder's vectors file of items
// random jobs drawn from seed.
func writeLadderVectors(path string, su *ladder.Setup, c *curves.Curve, items int, seed int64, brokenBase string) error {
	jobs := randomJobs(su, c, items, rand.New(rand.NewSource(seed)))
	in := make([]uint32, ladder.ElementRows(su.Params.N)*items)
	sc := make([]uint32, su.ScalarWords()*items)
	for i, j := range jobs {
		su.PackInput(in, sc, items, i, j)
	}
	consts := su.KernelConstants()
	if err := breakBase(consts, su.Params.N, brokenBase); err != nil {
		return err
	}
	return write(path, su, items, consts, in, sc, expected(su, jobs))
}

// breakBase edits the constants of a 30-bit system into those of a base the
// wide kernels do not take, for the check that they refuse it
// (require_wide_base in internal/kernels/ecmul.cu): "top", B̃ ending with
// 2^30 − 1 instead of 2^30; "twist", B's first residue not stored twisted
// (NegR_0 = 2 instead of 1); "" leaves them.
func breakBase(consts []uint32, n int, how string) error {
	l := basext.LayoutFor(n)
	switch how {
	case "":
	case "top":
		consts[l.ModBT+n-1]--
	case "twist":
		consts[l.NegR] = 2
	default:
		return fmt.Errorf("-break-base %q: want top or twist", how)
	}
	return nil
}

// randomJobs prepares items jobs of random points times random scalars
// drawn from rng, the first four scalars the edges 0, 1, n−1 and n.
func randomJobs(su *ladder.Setup, c *curves.Curve, items int, rng *rand.Rand) []ladder.Job {
	jobs := make([]ladder.Job, items)
	for i := range jobs {
		k := new(big.Int).Rand(rng, c.N())
		if i < 4 { // edge scalars first: 0, 1, n−1, n
			k = []*big.Int{big.NewInt(0), big.NewInt(1), new(big.Int).Sub(c.N(), big.NewInt(1)), c.N()}[i]
		}
		x, y, err := randomPoint(c, rng)
		if err != nil {
			log.Fatal(err)
		}
		if su.Schedule.Kind.IsComb() {
			x, y = c.Gx(), c.Gy()
		}
		if jobs[i], err = su.Prepare(x, y, k); err != nil {
			log.Fatal(err)
		}
	}
	return jobs
}

// randomPoint returns G times a random scalar in [1, n] drawn from rng.
func randomPoint(c *curves.Curve, rng *rand.Rand) (x, y *big.Int, err error) {
	x, y, _, err = c.ReferenceScalarMult(c.Gx(), c.Gy(), new(big.Int).Add(new(big.Int).Rand(rng, c.N()), big.NewInt(1)))
	return x, y, err
}

// expected runs every job through the CPU twin with each base extension the
// channels support, on all cores, and returns the output words (row r of
// item i at r·I + i). The entry points of every extension must give the
// same words: where two twins disagree it exits.
func expected(su *ladder.Setup, jobs []ladder.Job) []uint32 {
	n, I := su.Params.N, len(jobs)
	want := make([]uint32, su.OutputRows()*I)
	variants := basext.VariantsFor(su.Params)
	disagree := make([]int, I)
	par.Do(I, runtime.NumCPU(), 1, func(_, lo, hi int) {
		execs := make([]*ladder.RNSExecutor, len(variants))
		for k, v := range variants {
			execs[k] = su.NewRNSExecutor(v)
		}
		for i := lo; i < hi; i++ {
			disagree[i] = -1
			for k, e := range execs {
				ch := e.RunJob(jobs[i])
				for v := range ch {
					for r := range n {
						w := &want[(v*n+r)*I+i]
						if k > 0 && *w != ch[v][r] && disagree[i] < 0 {
							disagree[i] = k
						}
						*w = ch[v][r]
					}
				}
			}
		}
	})
	for i, k := range disagree {
		if k >= 0 {
			log.Fatalf("item %d: the %s and %s twins disagree", i, variants[0], variants[k])
		}
	}
	return want
}

// write writes the vectors file of items items to path: the header, the
// kernel's constants consts, then in, sc and want.
func write(path string, su *ladder.Setup, items int, consts, in, sc, want []uint32) error {
	hdr := []uint32{0x56434345, 2, uint32(su.Params.N), uint32(su.Params.MeBits), uint32(su.Bits), uint32(su.ScalarWords()), uint32(items),
		uint32(su.OutputCount()), uint32(len(consts))}
	return writeWords(path, [][]uint32{hdr, consts, in, sc, want})
}

// writeWords writes parts, one after the other, to path as little-endian
// words, its folder made if need be.
func writeWords(path string, parts [][]uint32) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, part := range parts {
		if err := binary.Write(w, binary.LittleEndian, part); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
