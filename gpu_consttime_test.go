package ecmul_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
	"github.com/rnsec/ecmul/internal/timing"
)

// The device timing check: the kernels of the default configuration (the
// co-Z ladder for k·P, the comb for k·G) timed alone by the GPU's events
// (diag.KernelTimes, diag.BaseKernelTimes) on whole batches of one scalar
// class against batches of random scalars, alternated in pairs, Welch's t
// of the batches' times over rounds (internal/timing, decided by
// timing.Default). Its positive control is the variable-time comb of
// ScalarBaseMultVarTimeBytes, the u1·G of ECDSA verification, on scalars
// whose 13-bit windows are almost all zero against random ones: code that
// reads a table row at its digit's address. Every batch has the same
// points (k·P) in the same order, so that the classes differ in their
// scalars alone; each call packs and copies its batch up, untimed, then
// launches the kernel twice and times the second launch, which the first
// keeps from waiting on the host's launch call. It runs on a GPU host:
//
//	ECMUL_TIMING_JSON=gpu-timing.jsonl ./ecmul.test -test.run 'TestGPUKernelsConstantTime' -test.v
//
// and skips elsewhere. Each Study's record goes to the test's log as
// JSON, and to $ECMUL_TIMING_JSON when set.

// gpuTimingBatch is the items of a timed batch: one chunk.
const gpuTimingBatch = 2048

// gpuTimingConfig is how much a device check measures: the items of a
// batch, the pairs of batches per round, the rounds, the curves, and
// whether every class is measured or the first few (-short).
type gpuTimingConfig struct {
	batch                       int
	pairs, minRounds, maxRounds int
	curves                      []*curves.Curve
	allClasses                  bool
}

func gpuTimingDefault() gpuTimingConfig {
	if testing.Short() {
		return gpuTimingConfig{batch: gpuTimingBatch, pairs: 50, minRounds: 5, maxRounds: 8, curves: []*curves.Curve{curves.P256()}}
	}
	return gpuTimingConfig{batch: gpuTimingBatch, pairs: 100, minRounds: 5, maxRounds: 10, curves: curves.All(), allClasses: true}
}

// kernelTimer times one kernel launch on a batch of scalars: the ladder
// on the Study's points, the comb, or the variable-time comb.
type kernelTimer func(ks []*big.Int) (ms float64, err error)

// gpuBatches is the one slice of scalars every launch reads, and what a
// failed launch does.
type gpuBatches struct {
	ks   []*big.Int
	fail func(error)
}

// gpuPool returns count batches of scalars drawn from gen.
func gpuPool(rng *rand.Rand, count, batch int, gen func(*rand.Rand) *big.Int) [][]*big.Int {
	p := make([][]*big.Int, count)
	for i := range p {
		p[i] = make([]*big.Int, batch)
		for j := range p[i] {
			p[i][j] = gen(rng)
		}
	}
	return p
}

// gpuPoolBatches is the number of distinct batches in a pool.
const gpuPoolBatches = 8

// target times time on batches of special against batches of against.
func (g *gpuBatches) target(special, against [][]*big.Int, time kernelTimer) timing.Target {
	sets := [...][][]*big.Int{special, against, timing.Train: against}
	return timing.Target{
		Set: func(class, i int) { copy(g.ks, sets[class][i%len(sets[class])]) },
		Run: func() float64 {
			ms, err := time(g.ks)
			if err != nil {
				g.fail(err)
			}
			return ms
		},
	}
}

// firstDevice returns the first GPU's time of one launch.
func firstDevice(ts [][]float64, err error) (float64, error) {
	if err != nil {
		return 0, err
	}
	for _, d := range ts {
		if len(d) > 0 {
			return d[0], nil
		}
	}
	return 0, errors.New("no GPU reported a time")
}

// gpuLadderClasses are the classes of k·P's batches: the ladder's special
// cases (k ≡ 0 and k ≡ −1, whose results are fixed; k ≥ n − 4, which takes
// 2n instead of 3n; k ≥ n, reduced first), the ends (k = 1, n − 2), short
// and low and high Hamming weight scalars. The first four are measured
// with -short.
func gpuLadderClasses(c *curves.Curve) []scalarClass {
	n, L := c.N(), c.ByteLen()
	one := big.NewInt(1)
	fixed := func(k *big.Int) func(*rand.Rand) *big.Int { return func(*rand.Rand) *big.Int { return k } }
	top := new(big.Int).Lsh(one, uint(8*L))
	return []scalarClass{
		{"k = 1", fixed(one)},
		{"k = n - 1", fixed(new(big.Int).Sub(n, one))},
		{"k = 0", fixed(big.NewInt(0))},
		{"low Hamming weight (three bits)", func(rng *rand.Rand) *big.Int {
			k := new(big.Int)
			for range 3 {
				k.SetBit(k, rng.IntN(n.BitLen()-1), 1)
			}
			return k
		}},
		{"k = n", fixed(new(big.Int).Set(n))},
		{"k >= n - 4", func(rng *rand.Rand) *big.Int { return new(big.Int).Sub(n, big.NewInt(1+rng.Int64N(4))) }},
		{"k >= n", func(rng *rand.Rand) *big.Int { return new(big.Int).Add(n, randBelow(rng, new(big.Int).Sub(top, n))) }},
		{"k = n - 2", fixed(new(big.Int).Sub(n, big.NewInt(2)))},
		{"k < 2^64", func(rng *rand.Rand) *big.Int { return new(big.Int).SetUint64(rng.Uint64()) }},
		{"high Hamming weight", fixed(new(big.Int).Sub(new(big.Int).Lsh(one, uint(n.BitLen()-1)), one))},
	}
}

// gpuCombClasses are the classes of k·G's batches: k = 0 (every digit
// zero), k = 1, n − 1, every digit zero but the top one, every bit set
// below n's top one, and every other byte zero. The first three are
// measured with -short.
func gpuCombClasses(c *curves.Curve) []scalarClass {
	n, L := c.N(), c.ByteLen()
	one := big.NewInt(1)
	fixed := func(k *big.Int) func(*rand.Rand) *big.Int { return func(*rand.Rand) *big.Int { return k } }
	alt := make([]byte, L)
	for i := range alt {
		alt[i] = byte(0xff * (i % 2))
	}
	return []scalarClass{
		{"k = 0", fixed(big.NewInt(0))},
		{"k = 1", fixed(one)},
		{"k = n - 1", fixed(new(big.Int).Sub(n, one))},
		{"every digit zero but the top one", func(rng *rand.Rand) *big.Int {
			return new(big.Int).Lsh(big.NewInt(1+rng.Int64N(7)), uint(8*L-4))
		}},
		{"high Hamming weight", fixed(new(big.Int).Sub(new(big.Int).Lsh(one, uint(n.BitLen()-1)), one))},
		{"every other byte zero", fixed(new(big.Int).Mod(new(big.Int).SetBytes(alt), n))},
	}
}

// gpuTimingStudy builds the device check of one curve on eng: the
// ladder's and the comb's classes, and the variable-time comb as the
// control.
func gpuTimingStudy(t *testing.T, eng *ecmul.Engine, c *curves.Curve, cfg gpuTimingConfig, rng *rand.Rand) *timing.Study {
	g := &gpuBatches{ks: make([]*big.Int, cfg.batch), fail: func(err error) { t.Fatal(err) }}
	points := make([]*ecmul.Point, cfg.batch)
	for i := range points {
		points[i] = randPoint(t, rng, c)
	}
	ladder := func(ks []*big.Int) (float64, error) { return firstDevice(diag.KernelTimes(eng, points, ks, 1, 1)) }
	comb := func(ks []*big.Int) (float64, error) { return firstDevice(diag.BaseKernelTimes(eng, false, ks, 1, 1)) }
	combVT := func(ks []*big.Int) (float64, error) { return firstDevice(diag.BaseKernelTimes(eng, true, ks, 1, 1)) }
	random := gpuPool(rng, gpuPoolBatches, cfg.batch, func(rng *rand.Rand) *big.Int { return randBelow(rng, c.N()) })
	s := &timing.Study{Pairs: cfg.pairs, MinRounds: cfg.minRounds, MaxRounds: cfg.maxRounds, Stat: timing.ByWelch}
	// the control: scalars below 2^20, whose 13-bit windows are zero but
	// the lowest two
	small := gpuPool(rng, gpuPoolBatches, cfg.batch, func(rng *rand.Rand) *big.Int { return big.NewInt(rng.Int64N(1 << 20)) })
	s.Control = timing.Class{Name: c.Name() + ", the variable-time comb (ScalarBaseMultVarTimeBytes), k < 2^20 against random scalars",
		Target: g.target(small, random, combVT)}
	for i, cl := range gpuLadderClasses(c) {
		if !cfg.allClasses && i >= 4 {
			break
		}
		s.Classes = append(s.Classes, timing.Class{Name: c.Name() + ", ladder (k·P), " + cl.name + " against random scalars",
			Target: g.target(gpuPool(rng, gpuPoolBatches, cfg.batch, cl.gen), random, ladder)})
	}
	for i, cl := range gpuCombClasses(c) {
		if !cfg.allClasses && i >= 3 {
			break
		}
		s.Classes = append(s.Classes, timing.Class{Name: c.Name() + ", comb (k·G), " + cl.name + " against random scalars",
			Target: g.target(gpuPool(rng, gpuPoolBatches, cfg.batch, cl.gen), random, comb)})
	}
	return s
}

// runGPUStudy runs s, logs its outcome and its record as JSON, appends the
// record to $ECMUL_TIMING_JSON when set, and returns the outcome.
func runGPUStudy(t *testing.T, name string, s *timing.Study, seed uint64) timing.Outcome {
	t.Helper()
	s.Goal = timing.Default.Goal()
	o := s.Run(rand.New(rand.NewPCG(seed, 0xda942042e4dd58b5)))
	rec, err := json.Marshal(timing.Record{Test: name, Limit: timing.Default.Limit(o), Rule: timing.Default, Outcome: o})
	require.NoError(t, err)
	t.Logf("%s:\n%s\nrecord: %s", name, o.Summary(), rec)
	require.NoError(t, timing.AppendRecord(name, o, timing.Default))
	return o
}

// TestGPUKernelsConstantTime is the device timing check on every GPU
// host's first GPU: per curve (P-256 alone with -short), the ladder's and
// the comb's classes against random scalars, the variable-time comb as
// the control; timing.Default decides. It skips without a GPU.
func TestGPUKernelsConstantTime(t *testing.T) {
	cfg := gpuTimingDefault()
	for _, c := range cfg.curves {
		t.Run(c.Name(), func(t *testing.T) {
			eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: cfg.batch})
			if errors.Is(err, gpu.ErrNoDevice) {
				t.Skip("no CUDA device")
			}
			require.NoError(t, err)
			defer eng.Close()
			k, _ := diag.KernelOf(eng)
			t.Logf("kernel: %+v", k)
			rng := newRNG(71)
			s := gpuTimingStudy(t, eng, c, cfg, rng)
			o := runGPUStudy(t, fmt.Sprintf("gpu kernels, %s", c.Name()), s, 71)
			for _, bad := range timing.Default.Check(o) {
				t.Error(bad)
			}
		})
	}
}

// TestGPUTimingStudyOnFakeDriver runs the device check's Study on a fake
// driver whose events report times made up per class (the kernels
// themselves do nothing): a class made slower than random batches is
// flagged, the others pass, the control is seen, and the record reaches
// $ECMUL_TIMING_JSON. It checks the check's plumbing, not a GPU.
func TestGPUTimingStudyOnFakeDriver(t *testing.T) {
	c := curves.P256()
	d := fakecuda.New()
	t.Cleanup(ecmul.UseGPUDriver(d, []byte("fatbin")))
	eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{})
	require.NoError(t, err)
	defer eng.Close()
	cfg := gpuTimingConfig{batch: 4, pairs: 40, minRounds: 3, maxRounds: 3, allClasses: true}
	rng := newRNG(73)
	s := gpuTimingStudy(t, eng, c, cfg, rng)
	// Each Set picks the time the next launch reports: 1 ms and noise, 1.5
	// for the control's special batches, 1.2 for k = 1's on the ladder.
	noise := rand.New(rand.NewPCG(1, 2))
	wrap := func(tg timing.Target, extra float64) timing.Target {
		return timing.Target{
			Set: func(class, i int) {
				tg.Set(class, i)
				ms := 1 + 0.01*noise.NormFloat64()
				if class == timing.Special {
					ms += extra
				}
				d.ElapsedMs = float32(ms)
			},
			Run: tg.Run,
		}
	}
	s.Control.Target = wrap(s.Control.Target, 0.5)
	for i := range s.Classes {
		extra := 0.0
		if i == 0 {
			extra = 0.2 // the ladder's k = 1
		}
		s.Classes[i].Target = wrap(s.Classes[i].Target, extra)
	}
	path := t.TempDir() + "/gpu.jsonl"
	t.Setenv(timing.EnvJSON, path)
	o := runGPUStudy(t, "fake gpu", s, 73)
	require.Len(t, o.Classes, len(gpuLadderClasses(c))+len(gpuCombClasses(c)))
	require.GreaterOrEqual(t, o.Control.T, timing.Default.ControlMin)
	bad := timing.Default.Check(o)
	require.Len(t, bad, 1, o.Summary())
	require.Contains(t, bad[0], "ladder (k·P), k = 1 against")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var rec timing.Record
	require.NoError(t, json.Unmarshal(data, &rec))
	require.Equal(t, "fake gpu", rec.Test)
}
