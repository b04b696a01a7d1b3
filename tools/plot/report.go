package main

import (
	"encoding/json"
	"fmt"
	"os"
)

// benchReport is what a chart reads of a JSON report of "ecmul bench
// --json"; the fields keep the report's names.
type benchReport struct {
	Date      string        `json:"date"`
	Commit    string        `json:"commit"`
	HostCores int           `json:"host_cores"`
	Device    string        `json:"device"`
	Driver    string        `json:"driver,omitempty"`
	Reps      int           `json:"reps,omitempty"`
	Chunk     int           `json:"chunk,omitempty"`
	Results   []benchResult `json:"results"`
	Peers     []benchPeer   `json:"peers"`
}

// benchResult is one measured configuration at one batch size. A mapping
// "default" and no items per block mean the library chose them.
type benchResult struct {
	Curve         string  `json:"curve"`
	Backend       string  `json:"backend"`
	Schedule      string  `json:"schedule,omitempty"`
	Ext           string  `json:"ext,omitempty"`
	ChannelBits   int     `json:"channel_bits,omitempty"`
	Mapping       string  `json:"mapping,omitempty"`
	ItemsPerBlock int     `json:"items_per_block,omitempty"`
	GPUs          int     `json:"gpus,omitempty"`
	Batch         int     `json:"batch"`
	LatencyMs     float64 `json:"latency_ms"`
	OpsPerSec     float64 `json:"ops_per_s"`
	KernelMs      float64 `json:"kernel_ms,omitempty"`
	KernelOps     float64 `json:"kernel_ops_per_s,omitempty"`
	KernelBatch   int     `json:"kernel_batch,omitempty"`
}

// benchPeer is a CPU reference measured in the same run.
type benchPeer struct {
	Curve     string  `json:"curve"`
	Name      string  `json:"name"`
	OpsPerSec float64 `json:"ops_per_s"`
	Batch     int     `json:"batch,omitempty"`
}

// readReport reads one JSON report of ecmul bench.
func readReport(path string) (*benchReport, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep benchReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(rep.Results) == 0 && len(rep.Peers) == 0 {
		return nil, fmt.Errorf("%s: no results and no peers: not a report of ecmul bench", path)
	}
	return &rep, nil
}
