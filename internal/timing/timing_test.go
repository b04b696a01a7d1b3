package timing_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/timing"
)

// bigWelch is Welch's t computed exactly from the definition, in rationals,
// with one float square root at the end.
func bigWelch(a, b []float64) float64 {
	mean := func(x []float64) *big.Rat {
		s := new(big.Rat)
		for _, v := range x {
			s.Add(s, new(big.Rat).SetFloat64(v))
		}
		return s.Quo(s, new(big.Rat).SetInt64(int64(len(x))))
	}
	// variance over n, i.e. var/n with the unbiased variance
	varOverN := func(x []float64, m *big.Rat) *big.Rat {
		s := new(big.Rat)
		for _, v := range x {
			d := new(big.Rat).Sub(new(big.Rat).SetFloat64(v), m)
			s.Add(s, d.Mul(d, d))
		}
		n := int64(len(x))
		return s.Quo(s, new(big.Rat).SetInt64((n-1)*n))
	}
	ma, mb := mean(a), mean(b)
	num, _ := new(big.Rat).Sub(ma, mb).Float64()
	se, _ := new(big.Rat).Add(varOverN(a, ma), varOverN(b, mb)).Float64()
	return num / math.Sqrt(se)
}

// TestWelchAgainstBig: Moments and Welch give the exact statistic on
// random samples of different sizes, offsets and spreads, and on a small
// sample worked by hand.
func TestWelchAgainstBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		na, nb := 2+rng.IntN(500), 2+rng.IntN(500)
		offset, spread := 1e6*rng.Float64(), 1+1e3*rng.Float64()
		a, b := make([]float64, na), make([]float64, nb)
		var ma, mb timing.Moments
		for i := range a {
			a[i] = offset + spread*rng.NormFloat64()
			ma.Add(a[i])
		}
		for i := range b {
			b[i] = offset + 0.1*spread + spread*rng.NormFloat64()
			mb.Add(b[i])
		}
		require.Equal(t, na, ma.N())
		want := bigWelch(a, b)
		require.InEpsilon(t, want, timing.Welch(&ma, &mb), 1e-6, "na=%d nb=%d", na, nb)
	}
	// a = {1, 2, 3}: mean 2, variance 1; b = {4, 6}: mean 5, variance 2;
	// t = (2 − 5)/√(1/3 + 2/2) = −3/√(4/3)
	var a, b timing.Moments
	for _, v := range []float64{1, 2, 3} {
		a.Add(v)
	}
	b.Add(4)
	b.Add(6)
	require.InDelta(t, -3/math.Sqrt(4.0/3), timing.Welch(&a, &b), 1e-12)
	require.InDelta(t, 1.0, a.Var(), 1e-12)
	var c, d timing.Moments
	c.Add(5)
	c.Add(5)
	d.Add(5)
	d.Add(5)
	require.Zero(t, timing.Welch(&c, &d), "two equal constant samples")
	d.Add(8)
	d.Add(8)
	require.Less(t, timing.Welch(&c, &d), 0.0)
	var e timing.Moments
	e.Add(7)
	e.Add(7)
	require.True(t, math.IsInf(timing.Welch(&e, &c), 1), "constant samples with different means")
}

// TestPaired: Pairs.Paired is the mean difference over its standard
// error, exactly, on random pairs and on a small sample worked by hand.
func TestPaired(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 100 {
		n := 2 + rng.IntN(300)
		p := make(timing.Pairs, n)
		d := make([]float64, n)
		for i := range p {
			base := 1e4 * rng.Float64()
			p[i] = [2]float64{base + 3 + rng.NormFloat64(), base + rng.NormFloat64()}
			d[i] = p[i][0] - p[i][1]
		}
		// the paired t is Welch's t of the differences against a sample of
		// zeros with the same count (whose variance is 0)
		require.InEpsilon(t, bigWelch(d, make([]float64, n)), p.Paired(), 1e-6)
	}
	// differences 1, 2, 3: mean 2, variance 1, t = 2/√(1/3)
	p := timing.Pairs{{11, 10}, {12, 10}, {13, 10}}
	require.InDelta(t, 2*math.Sqrt(3), p.Paired(), 1e-12)
	require.Zero(t, timing.Pairs{{1, 1}, {2, 2}}.Paired())
	require.True(t, math.IsInf(timing.Pairs{{2, 1}, {3, 2}}.Paired(), 1))
}

// TestPairedUnderDrift: when the machine's speed changes from stretch to
// stretch of pairs, the paired t still sees a difference that Welch's t,
// whose variance takes in the changes, no longer does.
func TestPairedUnderDrift(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	p := make(timing.Pairs, 20000)
	for i := range p {
		speed := 1 + 0.3*float64(i/1000%2) // a third slower every other stretch of 1,000 pairs
		p[i] = [2]float64{speed * (1000 + 1 + rng.NormFloat64()), speed * (1000 + rng.NormFloat64())}
	}
	require.Greater(t, p.Paired(), 50.0)
	require.Less(t, p.Welch(), 5.0)
}

// TestCrop: a pair is dropped when either of its runs is above the kept
// quantile of its class's runs, and kept otherwise; a class much slower
// than the other keeps its pairs.
func TestCrop(t *testing.T) {
	p := timing.Pairs{{1, 2}, {3, 4}, {5, 100}, {6, 7}, {200, 8}}
	// five runs per class; keep 0.8 takes each class's fifth smallest run
	// (200 and 100) as its limit, keep 0.6 the fourth (6 and 8)
	require.Equal(t, p, p.Crop(0.8))
	require.Equal(t, timing.Pairs{{1, 2}, {3, 4}, {6, 7}}, p.Crop(0.6))
	require.Len(t, p.Crop(1), len(p))
	require.Empty(t, timing.Pairs{}.Crop(0.9))
	require.Equal(t, 6.0, p.Median()) // the upper of the two middle runs
	slow := timing.Pairs{}
	for i := range 100 {
		slow = append(slow, [2]float64{float64(i), 1000 + float64(i)})
	}
	require.Len(t, slow.Crop(0.5), 51)
}

// TestMeasure: every pair holds one run of each class, the first class
// random from pair to pair; training runs come before every measured run,
// with their own numbering; each input is set just before its run.
func TestMeasure(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const pairs, train = 1000, 2
	var log []int // class*1e6 + i of each run, in order
	pending := -1
	clock := 0.0
	firstSpecial := 0
	target := timing.Target{
		Set: func(class, i int) {
			require.Equal(t, -1, pending, "two Sets without a Run")
			pending = class*1e6 + i
		},
		Run: func() float64 {
			require.NotEqual(t, -1, pending, "a Run without a Set")
			log = append(log, pending)
			pending = -1
			clock++
			return clock
		},
	}
	p := timing.Measure(rng, pairs, train, target)
	require.Len(t, p, pairs)
	require.Len(t, log, 2*pairs*(train+1))
	trainSeen := 0
	for k := 0; k < len(log); k += train + 1 {
		for j := range train {
			require.Equal(t, timing.Train*1e6+trainSeen, log[k+j])
			trainSeen++
		}
	}
	for i := range pairs {
		a, b := log[(2*i)*(train+1)+train], log[(2*i+1)*(train+1)+train]
		require.ElementsMatch(t, []int{timing.Special*1e6 + i, timing.Random*1e6 + i}, []int{a, b}, "pair %d", i)
		if a == timing.Special*1e6+i {
			firstSpecial++
		}
		// the times come back in their class's place
		require.Equal(t, math.Abs(p[i][0]-p[i][1]), float64(train+1))
	}
	require.InDelta(t, pairs/2, firstSpecial, 100, "the order within pairs is not random")
}

// fakeTarget returns a Target whose runs take base + delta (special
// class) or base (the others) plus noise, in arbitrary units.
func fakeTarget(rng *rand.Rand, base, delta, noise float64) timing.Target {
	class := 0
	return timing.Target{
		Set: func(c, _ int) { class = c },
		Run: func() float64 {
			v := base + noise*rng.NormFloat64()
			if class == timing.Special {
				v += delta
			}
			return v
		},
	}
}

// TestStudy: a control with a difference is seen and its t grows with
// the rounds until the goal; classes without a difference stay near 0;
// the Rule flags a class with a difference and a control without one.
func TestStudy(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rounds := 0
	s := timing.Study{
		Control: timing.Class{Name: "control", Target: fakeTarget(rng, 100, 1, 2)},
		Classes: []timing.Class{
			{Name: "same", Target: fakeTarget(rng, 100, 0, 2)},
			{Name: "also same", Target: fakeTarget(rng, 100, 0, 2)},
		},
		Pairs: 2000, MinRounds: 2, MaxRounds: 50, Goal: 30,
		Between: func() { rounds++ },
	}
	o := s.Run(rng)
	require.Equal(t, rounds, o.Rounds)
	require.GreaterOrEqual(t, o.Rounds, 2)
	require.Less(t, o.Rounds, 50)
	require.GreaterOrEqual(t, o.Control.T, 30.0)
	require.Equal(t, o.Rounds*2000, o.Control.Pairs)
	require.Len(t, o.Control.Rounds, o.Rounds)
	require.InDelta(t, 1.0, o.Control.Diff, 0.2)
	require.Less(t, o.MaxAbsT(), 5.0)
	rule := timing.Rule{ControlMin: 10, Bound: 10, Ratio: 3}
	require.Empty(t, rule.Check(o), o.Summary())
	require.Equal(t, o.Control.Paired, o.Control.T, "the paired t decides by default")
	s.Stat = timing.ByWelch
	o = s.Run(rng)
	require.Equal(t, o.Control.Welch, o.Control.T)
	require.GreaterOrEqual(t, o.Control.T, 30.0)
	s.Stat = timing.ByPaired
	require.InDelta(t, 10, rule.Limit(o), 1e-9)

	// a class with half the control's difference fails
	s.Classes = append(s.Classes, timing.Class{Name: "leaks", Target: fakeTarget(rng, 100, 0.5, 2)})
	o = s.Run(rng)
	bad := rule.Check(o)
	require.Len(t, bad, 1, o.Summary())
	require.Contains(t, bad[0], "leaks")

	// one round whose special runs are all disturbed does not make a class
	// differ: the rounds' median leaves it out
	disturbed, round := false, 0
	s.Between = func() { round++; disturbed = round == 2 }
	shift := fakeTarget(rng, 100, 0, 2)
	set := shift.Set
	var special bool
	shift.Set = func(c, i int) { special = c == timing.Special; set(c, i) }
	run := shift.Run
	shift.Run = func() float64 {
		if disturbed && special {
			return run() + 1
		}
		return run()
	}
	classes := s.Classes
	s.Classes = []timing.Class{{Name: "one disturbed round", Target: shift}}
	s.MinRounds = 5
	o = s.Run(rng)
	require.GreaterOrEqual(t, o.Rounds, 5)
	require.Len(t, o.Classes[0].Rounds, o.Rounds)
	require.Greater(t, o.Classes[0].Rounds[1], 10.0, "the disturbed round itself")
	require.Less(t, math.Abs(o.Classes[0].T), 5.0, o.Summary())
	require.Empty(t, rule.Check(o), o.Summary())
	s.Between, s.MinRounds = nil, 2

	// a leak is caught when its |t| reaches the limit, and reported when not
	s.Classes = classes[:2]
	s.Leaks = []timing.Class{{Name: "branch", Target: fakeTarget(rng, 100, 1, 2)}}
	o = s.Run(rng)
	require.Len(t, o.Leaks, 1)
	require.Empty(t, rule.Check(o), o.Summary())
	s.Leaks[0].Target = fakeTarget(rng, 100, 0, 2)
	o = s.Run(rng)
	bad = rule.Check(o)
	require.Len(t, bad, 1, o.Summary())
	require.Contains(t, bad[0], `leak "branch"`)
	s.Leaks = nil

	// a control that cannot be seen fails, after the most rounds
	s.Control.Target = fakeTarget(rng, 100, 0, 2)
	s.MaxRounds = 3
	o = s.Run(rng)
	require.Equal(t, 3, o.Rounds)
	bad = rule.Check(o)
	require.NotEmpty(t, bad)
	require.True(t, strings.HasPrefix(bad[0], `control "control"`), bad[0])
	// with a weak control, the limit follows it down
	require.Less(t, rule.Limit(o), 10.0)
}

// TestSpun: Spun's control makes the special class slower by its spin,
// which the measurement sees at once; Clock's runs report wall time.
func TestSpun(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	set := func(int, int) {}
	p := timing.Measure(rng, 2000, 1, timing.Spun(set, func() {}, 5000)).Crop(0.9)
	require.Greater(t, p.Paired(), 20.0)
	var d timing.Moments
	for _, q := range p {
		d.Add(q[0] - q[1])
	}
	require.Greater(t, d.Mean(), 1000.0, "5,000 dependent multiplications take more than a microsecond")
	c := timing.Clock(set, func() { timing.Spin(1) })
	require.Greater(t, c.Run(), 0.0)
	require.Equal(t, 40.0, timing.Default.Goal())
}

// TestAppendRecord: with $ECMUL_TIMING_JSON set, each record is one line
// of JSON that reads back; without it, nothing is written.
func TestAppendRecord(t *testing.T) {
	o := timing.Outcome{Control: timing.Result{Name: "control", T: 50}, Classes: []timing.Result{{Name: "k = 1", T: 1.5, Rounds: []float64{1, 2}}}, Rounds: 2}
	t.Setenv(timing.EnvJSON, "")
	require.NoError(t, timing.AppendRecord("none", o, timing.Default))
	path := filepath.Join(t.TempDir(), "t.jsonl")
	t.Setenv(timing.EnvJSON, path)
	require.NoError(t, timing.AppendRecord("a", o, timing.Default))
	require.NoError(t, timing.AppendRecord("b", o, timing.Default))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.Len(t, lines, 2)
	var r timing.Record
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &r))
	require.Equal(t, "b", r.Test)
	require.Equal(t, 10.0, r.Limit)
	require.Equal(t, timing.Default, r.Rule)
	require.Equal(t, o, r.Outcome)
}

// phasedTarget returns a Target whose runs take 100 plus noise, and
// delta() more on the special class's: a difference that may change
// between rounds.
func phasedTarget(rng *rand.Rand, delta func() float64) timing.Target {
	special := false
	return timing.Target{
		Set: func(c, _ int) { special = c == timing.Special },
		Run: func() float64 {
			v := 100 + 2*rng.NormFloat64()
			if special {
				v += delta()
			}
			return v
		},
	}
}

// TestDecide: a class that differs during the first measurement only, or
// the other way in the confirmation, passes; one that differs in both
// fails; a control or a leak unseen in one measurement is measured again
// and passes, unseen in both it fails; a Study with nothing wrong is not
// measured again.
func TestDecide(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	round := 0 // rounds of both measurements: 1 to 3 the first, 4 to 6 the confirmation
	first := func() bool { return round <= 3 }
	const size = 1.0
	constant := func(d float64) func() float64 { return func() float64 { return d } }
	onlyFirst := func(d float64) func() float64 {
		return func() float64 {
			if first() {
				return d
			}
			return 0
		}
	}
	flips := func() float64 {
		if first() {
			return size
		}
		return -size
	}
	rule := timing.Rule{ControlMin: 20, Bound: 10, Ratio: 4}
	study := func(control func() float64, classes map[string]func() float64, leaks ...func() float64) *timing.Study {
		round = 0
		s := &timing.Study{
			Control: timing.Class{Name: "control", Target: phasedTarget(rng, control)},
			Pairs:   2000, MinRounds: 3, MaxRounds: 3,
			Between: func() { round++ },
		}
		for _, name := range slices.Sorted(maps.Keys(classes)) {
			s.Classes = append(s.Classes, timing.Class{Name: name, Target: phasedTarget(rng, classes[name])})
		}
		for i, l := range leaks {
			s.Leaks = append(s.Leaks, timing.Class{Name: fmt.Sprintf("leak %d", i), Target: phasedTarget(rng, l)})
		}
		return s
	}

	// nothing wrong: one measurement
	d := study(constant(2*size), map[string]func() float64{"same": constant(0)}, constant(2*size)).Decide(rng, rule)
	require.Nil(t, d.Confirm)
	require.Empty(t, d.Failures, d.Summary())
	require.Equal(t, 3, round)

	// a disturbed first measurement and a sign that flips pass; a
	// difference in both fails, and only the suspects are measured again
	d = study(constant(2*size), map[string]func() float64{
		"disturbed": onlyFirst(size), "flips": flips, "leaks": constant(size), "same": constant(0),
	}).Decide(rng, rule)
	require.NotNil(t, d.Confirm, d.Summary())
	require.Equal(t, 6, round)
	var again []string
	for _, c := range d.Confirm.Classes {
		again = append(again, c.Name)
	}
	require.Equal(t, []string{"disturbed", "flips", "leaks"}, again)
	for _, c := range d.First.Classes[:3] {
		require.GreaterOrEqual(t, math.Abs(c.T), rule.Limit(d.First), d.Summary())
	}
	require.Len(t, d.Failures, 1, d.Summary())
	require.True(t, strings.HasPrefix(d.Failures[0], "leaks: "), d.Failures[0])

	// a leak missed in the first measurement only is caught; missed in
	// both, it fails
	d = study(constant(2*size), nil, func() float64 {
		if first() {
			return 0
		}
		return size
	}, constant(0)).Decide(rng, rule)
	require.NotNil(t, d.Confirm)
	require.Len(t, d.Confirm.Leaks, 2)
	require.Len(t, d.Failures, 1, d.Summary())
	require.Contains(t, d.Failures[0], `leak "leak 1"`)

	// a control unseen in the first measurement: everything is measured
	// again, and passes
	d = study(func() float64 { return 2 * size * float64(1-btoi(first())) },
		map[string]func() float64{"same": constant(0), "also same": constant(0)}, constant(2*size)).Decide(rng, rule)
	require.Less(t, math.Abs(d.First.Control.T), rule.ControlMin)
	require.NotNil(t, d.Confirm)
	require.Len(t, d.Confirm.Classes, 2)
	require.Len(t, d.Confirm.Leaks, 1)
	require.Empty(t, d.Failures, d.Summary())

	// a control unseen in both fails
	d = study(constant(0), map[string]func() float64{"same": constant(0)}).Decide(rng, rule)
	require.NotEmpty(t, d.Failures, d.Summary())
	require.True(t, strings.HasPrefix(d.Failures[0], `control "control"`), d.Failures[0])

	// the record holds both measurements and the failures
	rec := d.Record("t", rule)
	require.Equal(t, d.First, rec.Outcome)
	require.Equal(t, d.Confirm, rec.Confirm)
	require.Equal(t, rule.Limit(*d.Confirm), rec.ConfirmLimit)
	require.Equal(t, d.Failures, rec.Failures)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// helperStudy is the Study TestServeHelper serves: a control of a clear
// difference, classes a, b and c without one, and leak l.
func helperStudy(rng *rand.Rand, b float64) *timing.Study {
	s := &timing.Study{
		Control: timing.Class{Name: "control", Target: fakeTarget(rng, 100, 2, 2)},
		Pairs:   2000, MinRounds: 3, MaxRounds: 3,
	}
	for _, name := range []string{"a", "b", "c"} {
		delta := 0.0
		if name == "b" {
			delta = b
		}
		s.Classes = append(s.Classes, timing.Class{Name: name, Target: fakeTarget(rng, 100, delta, 2)})
	}
	s.Leaks = []timing.Class{{Name: "l", Target: fakeTarget(rng, 100, 2, 2)}}
	return s
}

// TestServeHelper is the process TestSubprocess starts: it serves
// helperStudy's confirmation, and skips when run otherwise.
func TestServeHelper(t *testing.T) {
	served, err := helperStudy(rand.New(rand.NewPCG(15, 16)), 0).Serve(rand.New(rand.NewPCG(17, 18)))
	if !served {
		t.Skip("a process for TestSubprocess")
	}
	require.NoError(t, err)
}

// TestSubprocess: Subprocess measures what it is asked in a new process,
// and Decide, confirming there, clears a class that differs in the first
// process only and fails one that differs in both; a confirmation that
// does not measure what was asked fails the Study.
func TestSubprocess(t *testing.T) {
	fresh := timing.Subprocess("TestServeHelper", testing.Short())
	o, err := fresh([]string{"a", "c"}, []string{"l"})
	require.NoError(t, err)
	require.Len(t, o.Classes, 2)
	require.Equal(t, "c", o.Classes[1].Name)
	require.Len(t, o.Leaks, 1)
	require.Equal(t, 3, o.Rounds)
	require.Greater(t, o.Control.T, 20.0)

	rng := rand.New(rand.NewPCG(19, 20))
	rule := timing.Rule{ControlMin: 20, Bound: 10, Ratio: 4}
	s := helperStudy(rng, 1) // b differs here, not in the new process
	s.Fresh = fresh
	d := s.Decide(rng, rule)
	require.GreaterOrEqual(t, math.Abs(d.First.Classes[1].T), 10.0, d.Summary())
	require.NotNil(t, d.Confirm)
	require.Len(t, d.Confirm.Classes, 1)
	require.Equal(t, "b", d.Confirm.Classes[0].Name)
	require.Empty(t, d.Failures, d.Summary())

	s.Fresh = func(classes, leaks []string) (timing.Outcome, error) {
		return timing.Outcome{Control: timing.Result{Name: "control", T: 100},
			Classes: []timing.Result{{Name: "b", T: 30}}, Rounds: 3}, nil
	}
	d = s.Decide(rng, rule)
	require.Len(t, d.Failures, 1, d.Summary())
	require.True(t, strings.HasPrefix(d.Failures[0], "b: "), d.Failures[0])

	s.Fresh = func(classes, leaks []string) (timing.Outcome, error) {
		return timing.Outcome{Control: timing.Result{Name: "control", T: 100}, Rounds: 3}, nil
	}
	d = s.Decide(rng, rule)
	require.Len(t, d.Failures, 1, d.Summary())
	require.Contains(t, d.Failures[0], "confirmation: measured")
}
