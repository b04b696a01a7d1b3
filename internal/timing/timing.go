// Package timing decides whether code takes the same time on a special
// class of secret inputs as on random ones, in the manner of dudect
// (Reparaz, Balasch and Verbauwhede, "Dude, is my code constant time?",
// DATE 2017): a t statistic of the two classes' times over many runs. It
// is the one implementation of the statistics that the timing tests of
// the host code and the device check share: Welch's t of the two classes
// as samples, and the paired t of the differences within pairs, which
// drift of the machine's speed (other processes, frequency) leaves
// alone where it widens Welch's.
//
// A measurement times runs in pairs, one of each class in random order,
// each measured run preceded by training runs on a third, random input
// whose times are dropped, so that the branch predictor expects what a
// random input does. A Study measures a positive control (the code with a
// secret-dependent difference of known size added: Spun), the classes,
// and known leaks (variants with a real secret-dependent branch) in
// rounds, each of them in every round, so that all of them see the machine
// in the same states (other processes, frequency); it adds rounds until
// the control's |t| reaches its goal. A Rule then decides: the control
// must be seen, each class's |t| must stay below a fixed bound and far
// below the control's, and each leak's must not.
//
// Study.Decide confirms before it fails: what the first measurement finds
// wrong is measured again, beside the control, in a fresh process of the
// test binary (Subprocess), and counts only when that measurement repeats
// it (a class at or above the limit with the same sign, the control or a
// leak missed again). Without a difference in the code, a class crosses
// the limit only when something outside the code favoured it: a burst of
// other processes' work during the measurement, or a state that lasts as
// long as one process (where its memory lies, presumably). The second
// kind is real: in bench/cpu's records a class's t in one half of its
// rounds repeats a crossing of |t| 3 in the other half with the same sign
// 14 times in 8,900 class measurements against 3.8 expected of independent
// halves, and the scalar path's k < 2^64 on one configuration measured
// |t| 48 in one process, then 48 again in a confirmation in that process,
// and near 0 elsewhere. A fresh process inherits neither kind: in 50 runs
// the one class that crossed (|t| 37.9) measured 0.12 in its fresh
// process, and no class crossed in two runs. So a class that crosses in a
// share p of processes is confirmed in about p/2 of those (the same
// sign), and a Study of N such classes raises a false alarm in about
// N·p²/2 of its runs: with p = 1/(50·72), one crossing of the scalar
// path's 72 classes in 50 runs, about 1 in 360,000. A difference in the
// code is there in every process: a leak whose |t| is twice the limit or
// more is confirmed about as surely as it is first seen, and the known
// leaks measure |t| 140 and more against a limit of at most 10.
package timing

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// Moments are the count, mean and variance of a sample (Welford's
// updates, stable in one pass).
type Moments struct {
	n, mean, m2 float64
}

// Add puts x into the sample.
func (m *Moments) Add(x float64) {
	m.n++
	d := x - m.mean
	m.mean += d / m.n
	m.m2 += d * (x - m.mean)
}

// N returns the sample's size.
func (m *Moments) N() int { return int(m.n) }

// Mean returns the sample's mean.
func (m *Moments) Mean() float64 { return m.mean }

// Var returns the sample's unbiased variance (0 below two values).
func (m *Moments) Var() float64 {
	if m.n < 2 {
		return 0
	}
	return m.m2 / (m.n - 1)
}

// Welch returns Welch's t of a against b, (mean a − mean b) /
// √(var a/|a| + var b/|b|): positive when a's values are larger. It is 0
// when both samples are constant, and ±Inf when only their means differ.
func Welch(a, b *Moments) float64 {
	d := a.Mean() - b.Mean()
	se := math.Sqrt(a.Var()/a.n + b.Var()/b.n)
	if se == 0 {
		if d == 0 {
			return 0
		}
		return math.Copysign(math.Inf(1), d)
	}
	return d / se
}

// Pairs are a measurement's times, pair by pair: [0] the special class's
// run, [1] the random class's.
type Pairs [][2]float64

// Crop returns the pairs whose runs are both at most the keep quantile of
// their class's runs (keep = 0.9 drops every pair with a run among the
// slowest tenth of its class: preemptions, interrupts, which hit either
// class alike). Each class is cut at its own quantile, so that a class
// much slower than the other keeps its pairs too.
func (p Pairs) Crop(keep float64) Pairs {
	if len(p) == 0 {
		return nil
	}
	var limit [2]float64
	for c := range limit {
		runs := make([]float64, len(p))
		for i, q := range p {
			runs[i] = q[c]
		}
		slices.Sort(runs)
		limit[c] = runs[min(len(runs)-1, int(keep*float64(len(runs))))]
	}
	out := make(Pairs, 0, len(p))
	for _, q := range p {
		if q[0] <= limit[0] && q[1] <= limit[1] {
			out = append(out, q)
		}
	}
	return out
}

// Welch returns Welch's t of the special class's times against the random
// class's.
func (p Pairs) Welch() float64 {
	var a, b Moments
	for _, q := range p {
		a.Add(q[0])
		b.Add(q[1])
	}
	return Welch(&a, &b)
}

// Paired returns the paired t of the differences, special minus random,
// within pairs: their mean over its standard error. The runs of a pair
// are adjacent in time, so a change of the machine's speed that outlasts
// a pair cancels in its difference.
func (p Pairs) Paired() float64 {
	var d Moments
	for _, q := range p {
		d.Add(q[0] - q[1])
	}
	se := math.Sqrt(d.Var() / d.n)
	if se == 0 {
		if d.Mean() == 0 {
			return 0
		}
		return math.Copysign(math.Inf(1), d.Mean())
	}
	return d.Mean() / se
}

// Median returns the median time of both classes' runs together.
func (p Pairs) Median() float64 {
	all := make([]float64, 0, 2*len(p))
	for _, q := range p {
		all = append(all, q[0], q[1])
	}
	if len(all) == 0 {
		return 0
	}
	slices.Sort(all)
	return all[len(all)/2]
}

// Stat is the statistic a Study decides by.
type Stat int

const (
	ByPaired Stat = iota // Pairs.Paired, the default
	ByWelch              // Pairs.Welch
)

// Clock returns a Target that times run by the wall clock, in
// nanoseconds, its input set by set.
func Clock(set func(class, i int), run func()) Target {
	return Target{Set: set, Run: func() float64 { return clocked(run) }}
}

// clocked returns how many nanoseconds run takes.
//
//go:noinline
func clocked(run func()) float64 {
	t0 := time.Now()
	run()
	return float64(time.Since(t0).Nanoseconds())
}

// Spun is Clock with n steps of Spin after run on the Special class's
// inputs, decided by a branch: a control whose difference is known, n
// dependent multiplications (three cycles each on current x86-64 and
// arm64 cores).
func Spun(set func(class, i int), run func(), n int) Target {
	special := false
	return Clock(func(class, i int) {
		special = class == Special
		set(class, i)
	}, func() {
		run()
		if special {
			Spin(n)
		}
	})
}

// spinSink keeps Spin's result, so that the compiler keeps its work.
var spinSink uint64

// Spin runs n dependent 64-bit multiplications.
//
//go:noinline
func Spin(n int) {
	x := spinSink | 1
	for range n {
		x = x*0x9e3779b97f4a7c15 + 1
	}
	spinSink = x
}

// The classes of a Target's inputs.
const (
	Special = 0 // the class under test
	Random  = 1 // random inputs, what the special class is compared with
	Train   = 2 // random inputs from another pool, whose runs are not kept
)

// Target is what a measurement times. Set(class, i) puts input i of class
// (Special, Random or Train) where Run reads it, untimed; Run runs the code
// once and returns how long it took, in any unit the same for every run
// (nanoseconds of a wall clock, milliseconds of a GPU's events).
type Target struct {
	Set func(class, i int)
	Run func() float64
}

// Measure times pairs pairs of runs of t, one of each class in random
// order, every measured run preceded by train runs on Train inputs. Input
// i of the Special and Random classes is used by pair i; Train inputs are
// numbered on from 0 across the call.
func Measure(rng *rand.Rand, pairs, train int, t Target) Pairs {
	// The schedule of every run, training runs included, is made first, so
	// that one loop, the same for each run, sets its input and times it: the
	// path that leads to a run, and so the branch predictor's history, does
	// not tell a training run from a measured one.
	type slot struct{ class, i int }
	sched := make([]slot, 0, 2*pairs*(train+1))
	tr := 0
	for i := range pairs {
		first := rng.IntN(2)
		for j := range 2 {
			for range train {
				sched = append(sched, slot{Train, tr})
				tr++
			}
			sched = append(sched, slot{first ^ j, i})
		}
	}
	times := make([]float64, len(sched))
	for k, s := range sched {
		t.Set(s.class, s.i)
		times[k] = t.Run()
	}
	out := make(Pairs, pairs)
	for k, s := range sched {
		if s.class != Train {
			out[s.i][s.class] = times[k]
		}
	}
	return out
}

// Class is one measurement of a Study: a name and its Target.
type Class struct {
	Name   string
	Target Target
}

// Study measures a positive control, classes and known leaks, round after
// round.
type Study struct {
	Control Class
	Classes []Class
	// Leaks are variants of the code with a secret-dependent branch, as
	// code that is not constant time would have: each must be caught.
	Leaks []Class
	// Pairs is the number of pairs per measurement per round; Train the
	// number of training runs before each measured run.
	Pairs, Train int
	// Rounds are the fewest and the most rounds; Goal is the control's |t|
	// after which no more rounds are added once the fewest are done.
	MinRounds, MaxRounds int
	Goal                 float64
	// Keep is the share of the runs that Crop keeps (0 means 0.9).
	Keep float64
	// Stat is the statistic that Result.T holds and Rule decides by.
	Stat Stat
	// Between, when set, runs before each round (a runtime.GC, say), so
	// that what it clears does not fall inside a measurement.
	Between func()
	// Fresh, when set, measures Decide's confirmation in place of Run:
	// the named classes and leaks beside the control, in a fresh process
	// (Subprocess), so that what a process's memory layout makes of a
	// class is not carried into its confirmation.
	Fresh func(classes, leaks []string) (Outcome, error)
}

// Result is a measurement's outcome over its rounds. Each round's pairs
// are cropped apart (the machine's state may change between rounds) and
// give that round's statistics; a statistic over all rounds is the median
// of the rounds' times √rounds: for a difference present in every round,
// about what the pairs of all rounds together give, and for one stretch of
// disturbed runs, which shows in one round only, about nothing. T is the
// Study's statistic (Stat) that way, Welch and Paired the two statistics,
// Rounds T's rounds one by one; Diff is the mean difference of the kept
// pairs (special minus random: the difference's estimate, in the
// Target's unit); Pairs and Kept count the pairs measured and kept, and
// Median is the median run of the kept pairs.
type Result struct {
	Name   string    `json:"name"`
	T      float64   `json:"t"`
	Welch  float64   `json:"welch_t"`
	Paired float64   `json:"paired_t"`
	Rounds []float64 `json:"rounds"`
	Diff   float64   `json:"diff"`
	Pairs  int       `json:"pairs"`
	Kept   int       `json:"kept"`
	Median float64   `json:"median"`
}

// result combines a measurement's rounds into its Result.
func result(name string, rounds []Pairs, keep float64, stat Stat) Result {
	r := Result{Name: name}
	var welch, paired []float64
	var kept Pairs
	var d Moments
	for _, p := range rounds {
		k := p.Crop(keep)
		welch, paired = append(welch, k.Welch()), append(paired, k.Paired())
		for _, q := range k {
			d.Add(q[0] - q[1])
		}
		kept = append(kept, k...)
		r.Pairs += len(p)
	}
	scale := math.Sqrt(float64(len(rounds)))
	r.Welch, r.Paired = median(welch)*scale, median(paired)*scale
	r.T, r.Rounds = r.Paired, paired
	if stat == ByWelch {
		r.T, r.Rounds = r.Welch, welch
	}
	r.Diff, r.Kept, r.Median = d.Mean(), len(kept), kept.Median()
	return r
}

// median returns the median of v (the mean of the middle two for an even
// count), leaving v as it is.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Outcome is a Study's results: the control's, the classes' and the
// leaks' in order, and the number of rounds run.
type Outcome struct {
	Control Result   `json:"control"`
	Classes []Result `json:"classes"`
	Leaks   []Result `json:"leaks,omitempty"`
	Rounds  int      `json:"rounds"`
}

// MaxAbsT returns the largest |t| of the classes (not the control's).
func (o Outcome) MaxAbsT() float64 {
	m := 0.0
	for _, r := range o.Classes {
		m = max(m, math.Abs(r.T))
	}
	return m
}

// Run measures s with the random order of rng: every round measures the
// control and each class once, in an order shuffled per round.
func (s *Study) Run(rng *rand.Rand) Outcome {
	keep := s.Keep
	if keep == 0 {
		keep = 0.9
	}
	all := append(append([]Class{s.Control}, s.Classes...), s.Leaks...)
	acc := make([][]Pairs, len(all)) // per measurement, its rounds
	order := make([]int, len(all))
	for i := range order {
		order[i] = i
	}
	result := func(i int) Result { return result(all[i].Name, acc[i], keep, s.Stat) }
	rounds := 0
	for rounds < max(s.MaxRounds, 1) {
		if s.Between != nil {
			s.Between()
		}
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			acc[i] = append(acc[i], Measure(rng, s.Pairs, s.Train, all[i].Target))
		}
		rounds++
		if rounds >= s.MinRounds && math.Abs(result(0).T) >= s.Goal {
			break
		}
	}
	o := Outcome{Control: result(0), Rounds: rounds}
	for i := range s.Classes {
		o.Classes = append(o.Classes, result(1+i))
	}
	for i := range s.Leaks {
		o.Leaks = append(o.Leaks, result(1+len(s.Classes)+i))
	}
	return o
}

// Rule decides a Study's Outcome. The control is seen when its |t|
// reaches ControlMin. A class passes when its |t| is below Limit, the
// smaller of Bound and the control's |t| divided by Ratio: the first says
// the measurement does not tell it from random inputs, the second that
// whatever difference it has is at most 1/Ratio of the control's, whose
// size is known. A leak is caught when its |t| reaches Limit.
type Rule struct {
	ControlMin float64 `json:"control_min"`
	Bound      float64 `json:"bound"`
	Ratio      float64 `json:"ratio"`
}

// Default is the Rule of the project's timing tests: the control seen at
// |t| 20, a class passing below |t| 10 and a quarter of the control's.
var Default = Rule{ControlMin: 20, Bound: 10, Ratio: 4}

// Goal returns the control's |t| from which Limit is Bound: a Study's Goal
// under r.
func (r Rule) Goal() float64 { return r.Ratio * r.Bound }

// Check returns what is wrong with o under r: nil when the control was
// seen and every class passed.
func (r Rule) Check(o Outcome) []string {
	var bad []string
	tc := math.Abs(o.Control.T)
	if tc < r.ControlMin {
		bad = append(bad, fmt.Sprintf("control %q: |t| = %.2f after %d pairs, below %.0f: the measurement does not see its difference",
			o.Control.Name, tc, o.Control.Pairs, r.ControlMin))
	}
	limit := r.Limit(o)
	for _, c := range o.Classes {
		if a := math.Abs(c.T); a >= limit {
			bad = append(bad, fmt.Sprintf("%s: |t| = %.2f, at least %.2f (min(%.0f, control's %.2f / %.0f)): the class takes a different time",
				c.Name, a, limit, r.Bound, tc, r.Ratio))
		}
	}
	for _, l := range o.Leaks {
		if a := math.Abs(l.T); a < limit {
			bad = append(bad, fmt.Sprintf("leak %q: |t| = %.2f, below %.2f: the measurement misses a secret-dependent branch", l.Name, a, limit))
		}
	}
	return bad
}

// Limit returns the |t| from which a class of o fails.
func (r Rule) Limit(o Outcome) float64 {
	return min(r.Bound, math.Abs(o.Control.T)/r.Ratio)
}

// Decision is a Study decided under a Rule: its first measurement, the
// confirmation when the first found something wrong, and what is wrong
// (nothing when the Study passes).
type Decision struct {
	First    Outcome
	Confirm  *Outcome
	Failures []string
}

// Decide measures s (Run) and decides under r. What the first measurement
// finds wrong is measured again, in fresh rounds beside the control (in a
// fresh process, when Fresh is set): the classes at or above the limit
// and the leaks below it, or, when the control was not seen, everything. A failure counts only when the
// confirmation repeats it: a class fails when both measurements reach
// their limits with the same sign, a leak is missed and the control
// unseen when both measurements miss them. A difference in the code is
// there in every measurement; a disturbance of the machine that favoured
// one class during one measurement is not.
func (s *Study) Decide(rng *rand.Rand, r Rule) Decision {
	first := s.Run(rng)
	d := Decision{First: first}
	limit := r.Limit(first)
	unseen := math.Abs(first.Control.T) < r.ControlMin
	var classes, leaks []int
	for i, c := range first.Classes {
		if unseen || math.Abs(c.T) >= limit {
			classes = append(classes, i)
		}
	}
	for i, l := range first.Leaks {
		if unseen || math.Abs(l.T) < limit {
			leaks = append(leaks, i)
		}
	}
	if !unseen && len(classes) == 0 && len(leaks) == 0 {
		return d
	}
	var cn, ln []string
	for _, i := range classes {
		cn = append(cn, s.Classes[i].Name)
	}
	for _, i := range leaks {
		ln = append(ln, s.Leaks[i].Name)
	}
	var c Outcome
	if s.Fresh != nil {
		var err error
		if c, err = s.Fresh(cn, ln); err == nil {
			err = c.measured(cn, ln)
		}
		if err != nil {
			d.Failures = append(d.Failures, "confirmation: "+err.Error())
			return d
		}
	} else {
		c = s.only(cn, ln).Run(rng)
	}
	d.Confirm = &c
	limit2 := r.Limit(c)
	tc, tc2 := math.Abs(first.Control.T), math.Abs(c.Control.T)
	if unseen && tc2 < r.ControlMin {
		d.Failures = append(d.Failures, fmt.Sprintf("control %q: |t| = %.2f, then %.2f, below %.0f: the measurement does not see its difference",
			c.Control.Name, tc, tc2, r.ControlMin))
	}
	for j, i := range classes {
		t1, t2 := first.Classes[i].T, c.Classes[j].T
		if math.Abs(t1) >= limit && math.Abs(t2) >= limit2 && t1*t2 > 0 {
			d.Failures = append(d.Failures, fmt.Sprintf("%s: t = %.2f, then %.2f, at least %.2f and %.2f (min(%.0f, control's |t| / %.0f)): the class takes a different time",
				c.Classes[j].Name, t1, t2, limit, limit2, r.Bound, r.Ratio))
		}
	}
	for j, i := range leaks {
		t1, t2 := math.Abs(first.Leaks[i].T), math.Abs(c.Leaks[j].T)
		if t1 < limit && t2 < limit2 {
			d.Failures = append(d.Failures, fmt.Sprintf("leak %q: |t| = %.2f, then %.2f, below %.2f and %.2f: the measurement misses a secret-dependent branch",
				c.Leaks[j].Name, t1, t2, limit, limit2))
		}
	}
	return d
}

// only returns s with the classes and leaks of these names alone, in
// s's order; unknown names are left out.
func (s *Study) only(classes, leaks []string) *Study {
	again := *s
	again.Classes, again.Leaks = nil, nil
	for _, c := range s.Classes {
		if slices.Contains(classes, c.Name) {
			again.Classes = append(again.Classes, c)
		}
	}
	for _, l := range s.Leaks {
		if slices.Contains(leaks, l.Name) {
			again.Leaks = append(again.Leaks, l)
		}
	}
	return &again
}

// measured returns an error unless o holds exactly the classes and leaks
// of these names, in this order.
func (o Outcome) measured(classes, leaks []string) error {
	var cn, ln []string
	for _, c := range o.Classes {
		cn = append(cn, c.Name)
	}
	for _, l := range o.Leaks {
		ln = append(ln, l.Name)
	}
	if !slices.Equal(cn, classes) || !slices.Equal(ln, leaks) {
		return fmt.Errorf("measured classes %q and leaks %q, not %q and %q", cn, ln, classes, leaks)
	}
	return nil
}

// EnvConfirm names the environment variable that makes a test process
// measure a confirmation for the process that started it (Subprocess):
// the file that holds the request and then the outcome.
const EnvConfirm = "ECMUL_TIMING_CONFIRM"

// confirmRequest is what Subprocess asks of the process it starts.
type confirmRequest struct {
	Classes []string `json:"classes"`
	Leaks   []string `json:"leaks"`
}

// Subprocess returns a Study.Fresh that runs the test binary again
// (os.Args[0]) for test alone (with -test.short when short), where the
// test's Study, built as in the first process, measures the classes and
// leaks asked (Serve) and hands back its Outcome.
func Subprocess(test string, short bool) func(classes, leaks []string) (Outcome, error) {
	return func(classes, leaks []string) (Outcome, error) {
		f, err := os.CreateTemp("", "timing-confirm-*.json")
		if err != nil {
			return Outcome{}, err
		}
		path := f.Name()
		defer os.Remove(path)
		req, _ := json.Marshal(confirmRequest{Classes: classes, Leaks: leaks})
		_, err = f.Write(req)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return Outcome{}, err
		}
		args := []string{"-test.run=^" + test + "$", "-test.count=1"}
		if short {
			args = append(args, "-test.short")
		}
		cmd := exec.Command(os.Args[0], args...)
		for _, e := range os.Environ() {
			if !strings.HasPrefix(e, EnvJSON+"=") && !strings.HasPrefix(e, EnvConfirm+"=") {
				cmd.Env = append(cmd.Env, e)
			}
		}
		cmd.Env = append(cmd.Env, EnvConfirm+"="+path)
		if out, err := cmd.CombinedOutput(); err != nil {
			return Outcome{}, fmt.Errorf("%s %s: %v\n%s", os.Args[0], strings.Join(args, " "), err, out)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return Outcome{}, err
		}
		var o Outcome
		if err := json.Unmarshal(data, &o); err != nil {
			return Outcome{}, fmt.Errorf("the confirmation's outcome: %w", err)
		}
		return o, nil
	}
}

// Serve reports whether this process was started by Subprocess; if so, it
// measures the classes and leaks asked beside the control, with the order
// of rng, and writes the Outcome back for the first process.
func (s *Study) Serve(rng *rand.Rand) (bool, error) {
	path := os.Getenv(EnvConfirm)
	if path == "" {
		return false, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return true, err
	}
	var req confirmRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return true, err
	}
	o := s.only(req.Classes, req.Leaks).Run(rng)
	out, err := json.Marshal(o)
	if err != nil {
		return true, err
	}
	return true, os.WriteFile(path, out, 0o644)
}

// Summary is d as lines: the first measurement's Summary, the
// confirmation's, and the failures.
func (d Decision) Summary() string {
	var b strings.Builder
	b.WriteString(d.First.Summary())
	if d.Confirm != nil {
		b.WriteString("confirmation:\n")
		b.WriteString(d.Confirm.Summary())
	}
	for _, f := range d.Failures {
		fmt.Fprintf(&b, "failure: %s\n", f)
	}
	return b.String()
}

// Record is what a Study's outcome leaves for the record: the test's
// name, the limit a class had to stay below, the rule, and the outcome;
// for a Decision, its confirmation with that measurement's limit, and
// what was found wrong.
type Record struct {
	Test         string   `json:"test"`
	Limit        float64  `json:"limit"`
	Rule         Rule     `json:"rule"`
	Outcome      Outcome  `json:"outcome"`
	Confirm      *Outcome `json:"confirm,omitempty"`
	ConfirmLimit float64  `json:"confirm_limit,omitempty"`
	Failures     []string `json:"failures,omitempty"`
}

// EnvJSON names the environment variable that, when set, names a file to
// which AppendRecord adds its records.
const EnvJSON = "ECMUL_TIMING_JSON"

// AppendRecord adds the record of o under r, as one line of JSON, to the
// file $ECMUL_TIMING_JSON names; without it, it does nothing.
func AppendRecord(test string, o Outcome, r Rule) error {
	return appendRecord(Record{Test: test, Limit: r.Limit(o), Rule: r, Outcome: o})
}

// AppendDecision adds the record of d under r as AppendRecord does.
func AppendDecision(test string, d Decision, r Rule) error {
	return appendRecord(d.Record(test, r))
}

// Record returns d's record under r.
func (d Decision) Record(test string, r Rule) Record {
	rec := Record{Test: test, Limit: r.Limit(d.First), Rule: r, Outcome: d.First, Confirm: d.Confirm, Failures: d.Failures}
	if d.Confirm != nil {
		rec.ConfirmLimit = r.Limit(*d.Confirm)
	}
	return rec
}

func appendRecord(rec Record) error {
	path := os.Getenv(EnvJSON)
	if path == "" {
		return nil
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Summary is o as lines: the control, then each class, with t, pairs kept
// and the median run.
func (o Outcome) Summary() string {
	var b strings.Builder
	line := func(kind string, r Result) {
		rs := make([]string, len(r.Rounds))
		for i, v := range r.Rounds {
			rs[i] = fmt.Sprintf("%.1f", v)
		}
		fmt.Fprintf(&b, "%s %s: t = %.2f (Welch %.2f, paired %.2f; rounds %s; difference %.3g; %d of %d pairs kept, median %.4g)\n",
			kind, r.Name, r.T, r.Welch, r.Paired, strings.Join(rs, " "), r.Diff, r.Kept, r.Pairs, r.Median)
	}
	line("control", o.Control)
	for _, r := range o.Classes {
		line("class", r)
	}
	for _, r := range o.Leaks {
		line("leak", r)
	}
	fmt.Fprintf(&b, "rounds: %d, max |t| of the classes: %.2f\n", o.Rounds, o.MaxAbsT())
	return b.String()
}
