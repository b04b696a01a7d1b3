// Command timingsum summarises runs of the timing tests (scripts/timing-runs.sh):
// it reads the records the tests append to $ECMUL_TIMING_JSON, one file per
// run, and the status of each run's tests, and writes one JSON summary: per
// Study, the control's |t|, the limit, each class's largest |t| over the
// runs, each leak's smallest, and the runs with a false alarm (a class at or
// above its limit) or a control or leak missed.
//
//	go run ./internal/tools/timingsum -status STATUS -date D -commit C -machine M -mode heavy RUN.jsonl...
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
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
	Records        int                `json:"records"`
	ControlName    string             `json:"control"`
	ControlAbsT    stats              `json:"control_abs_t"`
	ControlDiff    stats              `json:"control_difference_ns"`
	Limit          stats              `json:"limit"`
	Rounds         stats              `json:"rounds"`
	Classes        int                `json:"classes"`
	MaxAbsT        stats              `json:"max_abs_t_of_classes"`
	ClassMaxAbsT   map[string]float64 `json:"class_max_abs_t"`
	LeakMinAbsT    map[string]float64 `json:"leak_min_abs_t,omitempty"`
	LargestShare   float64            `json:"largest_class_t_over_limit"`
	FalseAlarms    int                `json:"false_alarms"`
	ControlsMissed int                `json:"controls_missed"`
	LeaksMissed    int                `json:"leaks_missed"`
	MedianRunNs    stats              `json:"control_median_run_ns"`

	controlT, limit, diff, median, rounds, maxAbs []float64
}

func main() {
	statusPath := flag.String("status", "", "file of lines `RUN TEST ok|FAIL` from the runs")
	date := flag.String("date", "", "the runs' date")
	commit := flag.String("commit", "", "the commit the tests were built from")
	machine := flag.String("machine", "", "the machine, in words")
	nproc := flag.Int("nproc", 0, "the machine's processors")
	mode := flag.String("mode", "", "heavy (go test) or light (go test -short)")
	command := flag.String("command", "", "the command each run ran")
	flag.Parse()
	studies := map[string]*study{}
	var order []string
	for _, path := range flag.Args() {
		if err := read(path, studies, &order); err != nil {
			fmt.Fprintln(os.Stderr, "timingsum:", err)
			os.Exit(1)
		}
	}
	for _, s := range studies {
		s.ControlAbsT, s.Limit, s.ControlDiff = statsOf(s.controlT), statsOf(s.limit), statsOf(s.diff)
		s.MedianRunNs, s.Rounds, s.MaxAbsT = statsOf(s.median), statsOf(s.rounds), statsOf(s.maxAbs)
	}
	runs, failed, err := readStatus(*statusPath)
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
		Rule        timing.Rule       `json:"rule"`
		Studies     map[string]*study `json:"studies"`
		Order       []string          `json:"order"`
	}{*date, *commit, *machine, *nproc, *mode, *command, runs, failed, timing.Default, studies, order}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "timingsum:", err)
		os.Exit(1)
	}
}

// read adds the records of one run's file to studies.
func read(path string, studies map[string]*study, order *[]string) error {
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
		add(s, r)
	}
	return sc.Err()
}

// add puts one record into s's summary.
func add(s *study, r timing.Record) {
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
	}
	if alarm {
		s.FalseAlarms++
	}
	if tc < r.Rule.ControlMin {
		s.ControlsMissed++
	}
	for _, l := range o.Leaks {
		a := math.Abs(l.T)
		if old, ok := s.LeakMinAbsT[l.Name]; !ok || a < old {
			s.LeakMinAbsT[l.Name] = a
		}
		if a < r.Limit {
			s.LeaksMissed++
		}
	}
}

// readStatus reads lines "RUN TEST ok|FAIL" and returns the number of runs
// and, per test, how many runs it failed in.
func readStatus(path string) (int, map[string]int, error) {
	failed := map[string]int{}
	if path == "" {
		return 0, failed, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, err
	}
	runs := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		runs[f[0]] = true
		if _, ok := failed[f[1]]; !ok {
			failed[f[1]] = 0
		}
		if f[2] != "ok" {
			failed[f[1]]++
		}
	}
	return len(runs), failed, nil
}
