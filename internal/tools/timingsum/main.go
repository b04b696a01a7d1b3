// Command timingsum summarises runs of the timing tests (scripts/timing-runs.sh):
// it reads the records the tests append to $ECMUL_TIMING_JSON, one file per
// run (run-N.jsonl), and the status of each run's tests, and writes one JSON
// summary: per Study, the control's |t|, the limit, each class's largest
// |t| over the runs, each leak's smallest, the runs whose first measurement
// found something wrong (a class at or above its limit, a control or leak
// missed) and those where the confirmation repeated it (timing.Study.Decide),
// and per test its failures and wall time. With -tsv it also writes one line
// per run and Study.
//
//	go run ./internal/tools/timingsum -status STATUS -date D -commit C -machine M -mode heavy [-tsv RUNS.tsv] RUN.jsonl...
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rnsec/ecmul/internal/timing"
)

// stats are the smallest, median and largest of some values.
type stats struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

func statsOf(v []float64) stats {
	if len(v) == 0 {
		return stats{}
	}
	s := slices.Sorted(slices.Values(v))
	return stats{Min: s[0], Median: s[len(s)/2], Max: s[len(s)-1]}
}

// study is the summary of one Study over the runs.
type study struct {
	Records      int                `json:"records"`
	ControlName  string             `json:"control"`
	ControlAbsT  stats              `json:"control_abs_t"`
	ControlDiff  stats              `json:"control_difference_ns"`
	Limit        stats              `json:"limit"`
	Rounds       stats              `json:"rounds"`
	Classes      int                `json:"classes"`
	MaxAbsT      stats              `json:"max_abs_t_of_classes"`
	ClassMaxAbsT map[string]float64 `json:"class_max_abs_t"`
	LeakMinAbsT  map[string]float64 `json:"leak_min_abs_t,omitempty"`
	LargestShare float64            `json:"largest_class_t_over_limit"`
	// The first measurement's: runs with a class at or above its limit,
	// the control unseen, a leak below the limit.
	FirstAlarms         int `json:"first_measurement_alarms"`
	FirstControlsMissed int `json:"first_measurement_controls_missed"`
	FirstLeaksMissed    int `json:"first_measurement_leaks_missed"`
	// Confirmations run, and each class measured again: its t then and in
	// the confirmation, and the confirmation's limit.
	Confirmations int         `json:"confirmations"`
	Confirmed     []confirmed `json:"confirmed_classes,omitempty"`
	// The decision's (after the confirmation): runs with a class failed, the
	// control unseen, a leak missed.
	FalseAlarms    int   `json:"false_alarms"`
	ControlsMissed int   `json:"controls_missed"`
	LeaksMissed    int   `json:"leaks_missed"`
	MedianRunNs    stats `json:"control_median_run_ns"`
	// RoundCorrelation is the correlation of a class's t in one round with
	// its t in the next, over every class and run of the first
	// measurements: near 0 when what moves a class's t in a round does not
	// carry over to the next rounds, as a confirmation's fresh rounds.
	RoundCorrelation float64 `json:"round_t_correlation"`
	RoundPairs       int     `json:"round_t_pairs"`
	// Halves splits each class's rounds of a first measurement into two
	// halves, each taken as a measurement of its own (the median of its
	// rounds' t times √rounds), and counts, per threshold, the classes
	// whose first half reached it, whose second half did, and whose both
	// did with the same sign: what a confirmation would repeat, and what
	// independent halves would repeat by chance (first × second /
	// classes / 2).
	Halves []halves `json:"split_halves"`

	controlT, limit, diff, median, rounds, maxAbs []float64
	lag                                           [][2]float64
}

// halves is one threshold's count of split-half crossings.
type halves struct {
	Threshold float64 `json:"threshold"`
	Classes   int     `json:"classes"`
	First     int     `json:"first_half"`
	Second    int     `json:"second_half"`
	Both      int     `json:"both_same_sign"`
	Expected  float64 `json:"both_if_independent"`
}

// thresholds are the |t| at which halves counts crossings.
var thresholds = []float64{2, 3, 4}

// median returns the median of v.
func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// split adds the split-half statistics of one class's rounds to s.
func (s *study) split(rounds []float64) {
	h := len(rounds) / 2
	if h < 2 {
		return
	}
	if s.Halves == nil {
		for _, x := range thresholds {
			s.Halves = append(s.Halves, halves{Threshold: x})
		}
	}
	a, b := median(rounds[:h])*math.Sqrt(float64(h)), median(rounds[h:2*h])*math.Sqrt(float64(h))
	for i := range s.Halves {
		x := &s.Halves[i]
		x.Classes++
		x.First += b2i(math.Abs(a) >= x.Threshold)
		x.Second += b2i(math.Abs(b) >= x.Threshold)
		x.Both += b2i(math.Abs(a) >= x.Threshold && math.Abs(b) >= x.Threshold && a*b > 0)
		x.Expected = float64(x.First) * float64(x.Second) / float64(x.Classes) / 2
	}
}

// correlation returns Pearson's correlation of the pairs' two values.
func correlation(p [][2]float64) float64 {
	var sx, sy, sxx, syy, sxy float64
	n := float64(len(p))
	for _, q := range p {
		sx, sy = sx+q[0], sy+q[1]
		sxx, syy, sxy = sxx+q[0]*q[0], syy+q[1]*q[1], sxy+q[0]*q[1]
	}
	return (n*sxy - sx*sy) / math.Sqrt((n*sxx-sx*sx)*(n*syy-sy*sy))
}

// confirmed is a class measured again: its t in the first measurement
// and in the confirmation, and the two limits.
type confirmed struct {
	Run    int     `json:"run"`
	Class  string  `json:"class"`
	T      float64 `json:"t"`
	Limit  float64 `json:"limit"`
	T2     float64 `json:"confirm_t"`
	Limit2 float64 `json:"confirm_limit"`
}

func main() {
	statusPath := flag.String("status", "", "file of lines `RUN TEST ok|FAIL` from the runs")
	date := flag.String("date", "", "the runs' date")
	commit := flag.String("commit", "", "the commit the tests were built from")
	machine := flag.String("machine", "", "the machine, in words")
	nproc := flag.Int("nproc", 0, "the machine's processors")
	mode := flag.String("mode", "", "heavy (go test) or light (go test -short)")
	command := flag.String("command", "", "the command each run ran")
	tsvPath := flag.String("tsv", "", "a file for one line per run and Study")
	flag.Parse()
	studies := map[string]*study{}
	var order []string
	var lines []string
	for _, path := range flag.Args() {
		if err := read(path, studies, &order, &lines); err != nil {
			fmt.Fprintln(os.Stderr, "timingsum:", err)
			os.Exit(1)
		}
	}
	if *tsvPath != "" {
		head := "run\tstudy\tpassed\tcontrol_abs_t\tlimit\tmax_class_abs_t\trounds\tconfirmed\tconfirm_control_abs_t\tconfirm_max_class_abs_t\tmin_leak_abs_t\n"
		body := strings.Join(lines, "")
		if err := os.WriteFile(*tsvPath, []byte(head+body), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "timingsum:", err)
			os.Exit(1)
		}
	}
	for _, s := range studies {
		s.ControlAbsT, s.Limit, s.ControlDiff = statsOf(s.controlT), statsOf(s.limit), statsOf(s.diff)
		s.MedianRunNs, s.Rounds, s.MaxAbsT = statsOf(s.median), statsOf(s.rounds), statsOf(s.maxAbs)
		s.RoundCorrelation, s.RoundPairs = correlation(s.lag), len(s.lag)
	}
	runs, failed, seconds, err := readStatus(*statusPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "timingsum:", err)
		os.Exit(1)
	}
	out := struct {
		Date        string            `json:"date"`
		Commit      string            `json:"commit"`
		Machine     string            `json:"machine"`
		Nproc       int               `json:"nproc"`
		Mode        string            `json:"mode"`
		Command     string            `json:"command"`
		Runs        int               `json:"runs"`
		FailedTests map[string]int    `json:"failed_tests"`
		Seconds     map[string]stats  `json:"test_seconds"`
		RunSeconds  stats             `json:"run_seconds"`
		Rule        timing.Rule       `json:"rule"`
		Studies     map[string]*study `json:"studies"`
		Order       []string          `json:"order"`
	}{*date, *commit, *machine, *nproc, *mode, *command, runs, failed, map[string]stats{}, stats{}, timing.Default, studies, order}
	perRun := map[string]float64{}
	for test, v := range seconds {
		out.Seconds[test] = statsOf(v)
		for i, s := range v {
			perRun[fmt.Sprint(i)] += s
		}
	}
	var total []float64
	for _, s := range perRun {
		total = append(total, s)
	}
	out.RunSeconds = statsOf(total)
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "timingsum:", err)
		os.Exit(1)
	}
}

// read adds the records of one run's file (run-N.jsonl) to studies, and
// a line per record to lines.
func read(path string, studies map[string]*study, order *[]string, lines *[]string) error {
	run := 0
	fmt.Sscanf(strings.TrimPrefix(filepath.Base(path), "run-"), "%d", &run)
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var r timing.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		s := studies[r.Test]
		if s == nil {
			s = &study{ClassMaxAbsT: map[string]float64{}, LeakMinAbsT: map[string]float64{}}
			studies[r.Test] = s
			*order = append(*order, r.Test)
		}
		*lines = append(*lines, add(s, r, run))
	}
	return sc.Err()
}

// add puts one record of run into s's summary and returns its line.
func add(s *study, r timing.Record, run int) string {
	o := r.Outcome
	s.Records++
	s.ControlName = o.Control.Name
	tc := math.Abs(o.Control.T)
	s.controlT = append(s.controlT, tc)
	s.limit = append(s.limit, r.Limit)
	s.diff = append(s.diff, o.Control.Diff)
	s.median = append(s.median, o.Control.Median)
	s.rounds = append(s.rounds, float64(o.Rounds))
	s.Classes = len(o.Classes)
	m := o.MaxAbsT()
	s.maxAbs = append(s.maxAbs, m)
	s.LargestShare = max(s.LargestShare, m/r.Limit)
	alarm := false
	for _, c := range o.Classes {
		a := math.Abs(c.T)
		s.ClassMaxAbsT[c.Name] = max(s.ClassMaxAbsT[c.Name], a)
		alarm = alarm || a >= r.Limit
		s.split(c.Rounds)
		for i := 1; i < len(c.Rounds); i++ {
			s.lag = append(s.lag, [2]float64{c.Rounds[i-1], c.Rounds[i]})
		}
	}
	if alarm {
		s.FirstAlarms++
	}
	if tc < r.Rule.ControlMin {
		s.FirstControlsMissed++
	}
	leakMin, leakMissed := math.Inf(1), false
	for _, l := range o.Leaks {
		a := math.Abs(l.T)
		if old, ok := s.LeakMinAbsT[l.Name]; !ok || a < old {
			s.LeakMinAbsT[l.Name] = a
		}
		leakMin = min(leakMin, a)
		leakMissed = leakMissed || a < r.Limit
	}
	if leakMissed {
		s.FirstLeaksMissed++
	}
	// the decision: what the record's failures say
	var failClass, failControl, failLeak bool
	for _, f := range r.Failures {
		switch {
		case strings.HasPrefix(f, "control "):
			failControl = true
		case strings.HasPrefix(f, "leak "):
			failLeak = true
		default:
			failClass = true
		}
	}
	s.FalseAlarms += b2i(failClass)
	s.ControlsMissed += b2i(failControl)
	s.LeaksMissed += b2i(failLeak)
	c2, m2 := "", ""
	if cf := r.Confirm; cf != nil {
		s.Confirmations++
		first := map[string]float64{}
		for _, c := range o.Classes {
			first[c.Name] = c.T
		}
		for _, c := range cf.Classes {
			s.Confirmed = append(s.Confirmed, confirmed{Run: run, Class: c.Name, T: first[c.Name], Limit: r.Limit, T2: c.T, Limit2: r.ConfirmLimit})
		}
		c2, m2 = fmt.Sprintf("%.2f", math.Abs(cf.Control.T)), fmt.Sprintf("%.2f", cf.MaxAbsT())
	}
	lm := ""
	if len(o.Leaks) > 0 {
		lm = fmt.Sprintf("%.2f", leakMin)
	}
	return fmt.Sprintf("%d\t%s\t%t\t%.2f\t%.2f\t%.2f\t%d\t%t\t%s\t%s\t%s\n", run, r.Test, len(r.Failures) == 0, tc, r.Limit, m, o.Rounds,
		r.Confirm != nil, c2, m2, lm)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readStatus reads lines "RUN TEST ok|FAIL [SECONDS]" and returns the
// number of runs and, per test, how many runs it failed in and its wall
// times in seconds, run by run.
func readStatus(path string) (int, map[string]int, map[string][]float64, error) {
	failed, seconds := map[string]int{}, map[string][]float64{}
	if path == "" {
		return 0, failed, seconds, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, nil, err
	}
	runs := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		runs[f[0]] = true
		if _, ok := failed[f[1]]; !ok {
			failed[f[1]] = 0
		}
		if f[2] != "ok" {
			failed[f[1]]++
		}
		if len(f) > 3 {
			if v, err := strconv.ParseFloat(f[3], 64); err == nil {
				seconds[f[1]] = append(seconds[f[1]], v)
			}
		}
	}
	return len(runs), failed, seconds, nil
}
