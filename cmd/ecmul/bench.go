package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/rns"
)

const benchHelp = `Usage: ecmul bench [flags]

Measures throughput (operations per second) and latency (the time of one
batch) versus batch size, for every configuration of the grid below and
every operation of --op:

  mul    k·P: scalar multiplications through Engine.ScalarMult (the
         default); on the gpu backend also through ScalarMultBytes, and
         the kernel alone
  base   k·G through Engine.ScalarBaseMultBytes, bytes in and out (the
         fixed-base comb on the gpu and rns-cpu backends); on the gpu
         backend also the comb's kernel alone
  ecdsa  ECDSA signatures verified through ecdsa.Verify (u1·G and u2·Q on
         the engine, their sum compared with r in the gpu backend's verify
         kernel, on the host elsewhere): valid signatures of a pool of
         at most 1,024, cycled; on the gpu backend also its two kernels
         alone (the ladder's of u2·Q and the variable-time comb's of u1·G,
         their times added)
  sign   ECDSA signatures made through ecdsa.Sign with its default options
         (RFC 6979 nonces; the gpu backend derives them, computes k·G on
         its constant-time comb and s on the GPU; elsewhere k·G as base
         computes it, the rest on the host):
         SHA-256 digests under random keys, a pool of at most 1,024 pairs,
         cycled; on the gpu backend also the comb's kernel alone, as base

Each configuration, operation and batch size starts from a collected heap
(as go test's benchmarks do), runs once to warm up, then --reps times; the
median is reported. End-to-end times include validation,
packing, transfers, conversions, the batched inversion and y-recovery; on
the gpu backend the kernels are also timed alone on resident data (CUDA
events): a batch of at most --chunk items in one launch, a larger one as
the whole chunks that cover each GPU's share, queued on its streams as the
batch's chunks are. Every result of base and ecdsa is also
given as a ratio to k·P of the same curve, configuration and batch when mul
is measured in the same run (--op mul,base,ecdsa): to its bytes API figure
where there is one (gpu), else to its end-to-end one. Every result of sign
is given as a ratio to k·G ("vs k·G") of the same curve, configuration and
batch when base is measured in the same run (--op base,sign).

The grid is every combination of the lists given that the backend has (the
auto backend is resolved first):

  gpu      curve × schedule × base extension × channel width × mapping ×
           items per block × GPUs, less the combinations the kernel lacks:
           30-bit channels take Shenoy's extension only, the tile mapping
           co-Z and Shenoy on 16-bit channels at 16 items per block only,
           the spread mapping co-Z and Shenoy at 16 items per block at most,
           the mma mapping co-Z and Shenoy on 30-bit channels at multiples
           of 8 items per block up to 128, the pair mapping the same at
           multiples of 16 up to 256
  rns-cpu  curve × schedule × base extension × channel width (30-bit
           channels with Shenoy's extension only)
  cpu      curve

Every list of the configuration (--schedule, --ext, --channel-bits, --mapping,
--ipb) is "default" unless given: the value is left for the library to
choose, as mul, verify and a program with zero ecmul.Options get it (co-Z,
Shenoy, 30-bit channels or 16 for Kawamura's extension and the tile mapping,
the pair mapping where the kernel has it (co-Z and the combs, Shenoy, 30-bit
channels), else warp or block by curve and width, with spread
for small chunks, and the items
per block of that mapping). "default" may be listed beside named
values, as in --mapping default,warp. With no configuration flag, bench
measures what the library runs.

In the same run, after every configuration, it measures the CPU peers of
this host, for each operation:
the cpu backend on all cores and, when openssl is installed, "openssl speed
-multi <cores>" on P-224 and P-256 (ecdhpN for mul; ecdsapN for base and
sign, its signing figure, and for ecdsa, its verification figure), and prints
every figure as a ratio to the best peer of its operation. Results go to a
table on standard output, --json (the full report) and --csv (one row per
result, kind "result", and one per peer, kind "peer"; every row repeats the
run's date, commit, device and settings). Each result and peer names its
operation (op), and each result its configuration as it ran: schedule,
base extension, channel width, and on the gpu backend the mapping and items
per block, the library's choice where the flag said "default". tools/plot
draws charts from the JSON.

Examples:
  ecmul bench --backend gpu --curve p224,p256 --json gpu.json
  ecmul bench --backend gpu --curve p224 --mapping warp,block --ipb 4,8 --channel-bits 16
  ecmul bench --backend cpu --curve p256,secp256k1 --batch 1,64,4096 --csv cpu.csv
  ecmul bench --backend gpu --curve p256 --op mul,base,ecdsa,sign --json ops.json

Exit status: 0 on success, 1 when a configuration failed (the others are
still reported) or the results cannot be written, 2 for usage errors.

Flags:
`

// benchResult is one measured configuration.
type benchResult struct {
	Curve       string `json:"curve"`
	Backend     string `json:"backend"`
	Op          string `json:"op"` // mul (k·P), base (k·G through ScalarBaseMultBytes), ecdsa (ecdsa.Verify) or sign (ecdsa.Sign)
	Schedule    string `json:"schedule,omitempty"`
	Ext         string `json:"ext,omitempty"`
	ChannelBits int    `json:"channel_bits,omitempty"`
	Mapping     string `json:"mapping,omitempty"`
	// Finish is where the last batch's items were prepared and finished
	// (binary ↔ RNS, inversion, bytes): "gpu" (the prepare and finish
	// kernels) or "host"; gpu backend only.
	Finish string `json:"finish,omitempty"`
	// FinishItems is the items each thread of the finish kernel took
	// (--finish-items, or the library's), where Finish is "gpu".
	FinishItems   int     `json:"finish_items,omitempty"`
	ItemsPerBlock int     `json:"items_per_block,omitempty"`
	GPUs          int     `json:"gpus,omitempty"` // devices sharing each batch
	Batch         int     `json:"batch"`
	LatencyMs     float64 `json:"latency_ms"`
	OpsPerSec     float64 `json:"ops_per_s"`
	// RunsMs is every timed run's wall time, of which LatencyMs is the
	// median, and GCCycles the garbage collections that ran during them.
	RunsMs   []float64 `json:"runs_ms,omitempty"`
	GCCycles uint64    `json:"gc_cycles"`
	// BytesLatencyMs and BytesOpsPerSec are end to end through
	// Engine.ScalarMultBytes (uncompressed SEC1 in and out), gpu backend.
	BytesLatencyMs float64 `json:"bytes_latency_ms,omitempty"`
	BytesOpsPerSec float64 `json:"bytes_ops_per_s,omitempty"`
	// BytesHostCPUNsPerItem is the process CPU time (user + system, every
	// thread: the host's packing and finish, the driver, the waits) of a
	// bytes batch over its items, the median of the timed runs.
	BytesHostCPUNsPerItem float64 `json:"bytes_host_cpu_ns_per_item,omitempty"`
	KernelMs              float64 `json:"kernel_ms,omitempty"`
	KernelOps             float64 `json:"kernel_ops_per_s,omitempty"`
	KernelBatch           int     `json:"kernel_batch,omitempty"`
	FillMs                float64 `json:"fill_ms,omitempty"`
	DrainMs               float64 `json:"drain_ms,omitempty"`
	WaitMs                float64 `json:"wait_ms,omitempty"`
	CopyMs                float64 `json:"copy_ms,omitempty"`
	// DeviceKernelsMs is the device time of the last batch's chunks
	// between their copies, summed over chunks: the ladder kernel and,
	// where they ran, the prepare and finish kernels.
	DeviceKernelsMs float64 `json:"device_kernels_ms,omitempty"`
	// PrepareMs and FinishMs are the prepare and finish kernels' shares
	// of DeviceKernelsMs.
	PrepareMs float64 `json:"prepare_ms,omitempty"`
	FinishMs  float64 `json:"finish_ms,omitempty"`
	// BytesTimeline is the device timeline of the last bytes batch, chunk
	// by chunk (gpu).
	BytesTimeline []diag.ChunkTimes `json:"bytes_timeline,omitempty"`
	// StepStats is, for sign on the gpu backend, where the time of the
	// last signing step that ran on the GPU went: one GPU batch of up to
	// 65,536 items, chunk by chunk.
	StepStats     *stepStats `json:"sign_step,omitempty"`
	GPUPipelineMs float64    `json:"gpu_pipeline_ms,omitempty"`
	RatioToPeer   float64    `json:"ratio_to_best_peer,omitempty"`
	// RatioToMul is, for base and ecdsa, OpsPerSec over the k·P figure of
	// the same curve, configuration and batch measured in the same run:
	// its BytesOpsPerSec where measured, else its OpsPerSec.
	RatioToMul float64 `json:"ratio_to_mul,omitempty"`
	// RatioToBase is, for sign, OpsPerSec over the k·G figure (base) of
	// the same curve, configuration and batch measured in the same run.
	RatioToBase float64 `json:"ratio_to_base,omitempty"`
	// PerDevice is each GPU's share when several share the batch.
	PerDevice []deviceShare `json:"per_device,omitempty"`
}

// stepStats is one GPU batch's time (gpu.Stats), in milliseconds.
type stepStats struct {
	Items     int               `json:"items"`
	WallMs    float64           `json:"wall_ms"`
	KernelsMs float64           `json:"device_kernels_ms"`
	CopyMs    float64           `json:"copy_ms"`
	FillMs    float64           `json:"fill_ms"`
	DrainMs   float64           `json:"drain_ms"`
	WaitMs    float64           `json:"wait_ms"`
	Timeline  []diag.ChunkTimes `json:"timeline"`
}

// deviceShare is one GPU's part of a result: the chunks of the last timed
// run it computed, and its kernel-only rate while every GPU ran at once.
type deviceShare struct {
	Device    int     `json:"device"`
	Chunks    int     `json:"chunks"`
	KernelMs  float64 `json:"kernel_ms,omitempty"`
	KernelOps float64 `json:"kernel_ops_per_s,omitempty"`
	Fault     string  `json:"fault,omitempty"`
}

// benchPeer is a CPU reference measured in the same run.
type benchPeer struct {
	Curve     string  `json:"curve"`
	Op        string  `json:"op"` // the operation measured, as a result's
	Name      string  `json:"name"`
	OpsPerSec float64 `json:"ops_per_s"`
	Batch     int     `json:"batch,omitempty"`
	Command   string  `json:"command,omitempty"`
}

type benchReport struct {
	Date      string        `json:"date"`
	Commit    string        `json:"commit"`
	GoVersion string        `json:"go_version"`
	HostCores int           `json:"host_cores"`
	HostCPU   string        `json:"host_cpu,omitempty"`
	Device    string        `json:"device"`
	Driver    string        `json:"driver,omitempty"`
	Reps      int           `json:"reps,omitempty"`
	Chunk     int           `json:"chunk,omitempty"`
	Results   []benchResult `json:"results"`
	Peers     []benchPeer   `json:"peers"`
	// GPUPeers are other GPU implementations measured in the same device
	// call (--gpu-peers), kernel only; results are not divided by them.
	GPUPeers []benchPeer `json:"gpu_peers,omitempty"`
}

// geccOps are the operations of gecc.sh's benchmarks (`gecc.sh OUT all`),
// by the name it prints: k·P, k·G, ECDSA verification and signing, as
// bench names them.
var geccOps = map[string]string{"gecc": opMul, "gecc-fixed": opBase, "gecc-verify": opECDSA, "gecc-sign": opSign}

// readGPUPeers parses lines "NAME batch=N op/s=X", each a GPU peer's
// kernel-only figure (gecc…: gECC's SM2 256-bit benchmarks, their
// operation from the name); other lines are ignored.
func readGPUPeers(r io.Reader) ([]benchPeer, error) {
	re := regexp.MustCompile(`^(\S+) batch=(\d+) op/s=(\d+(?:\.\d+)?)$`)
	var out []benchPeer
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := re.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		batch, err1 := strconv.Atoi(m[2])
		ops, err2 := strconv.ParseFloat(m[3], 64)
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		p := benchPeer{Curve: "SM2 (256-bit)", Name: m[1] + ", kernel only", OpsPerSec: ops, Batch: batch}
		if op, ok := geccOps[m[1]]; ok {
			p.Name, p.Op = "gECC (Xiong et al.), kernel only, not constant-time", op
		}
		out = append(out, p)
	}
	return out, sc.Err()
}

// hostCPUModel returns the host's processor model from /proc/cpuinfo, or ""
// where there is none. The CPU peers and the host's share of an end-to-end
// run depend on it, so a report names it.
func hostCPUModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func commit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if dirty {
				rev += "-dirty"
			}
			return rev
		}
	}
	return "unknown"
}

// median returns the median of xs (the mean of the two middle values for an
// even count), 0 for none.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	switch n := len(s); {
	case n == 0:
		return 0
	case n%2 == 1:
		return s[n/2]
	default:
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// benchInputs returns batch valid points and random scalars in [1, n);
// the points cycle through a pool of at most 1,024, drawn by the sampler
// that gen and verify use, as are the scalars.
func benchInputs(c *curves.Curve, batch int) ([]*ecmul.Point, []*big.Int) {
	s := sampler{c, 1}
	pool := s.points(streamBenchPoint, 0, min(batch, 1024))
	rng := s.rng(streamBenchPoint, 1<<61)
	ks := newScalarSampler(c.N())
	pts, scalars := make([]*ecmul.Point, batch), make([]*big.Int, batch)
	for i := range pts {
		pts[i], scalars[i] = (*ecmul.Point)(pool[i%len(pool)]), new(big.Int).SetBytes(ks.next(rng))
	}
	return pts, scalars
}

// opensslSpeed is what openssl speed measures for each operation: the
// test's name per curve and how to read its figure (ECDH for k·P; ECDSA
// signing, whose cost is k·G and an inversion, for k·G and for signing;
// ECDSA verification).
var opensslSpeed = map[string]struct {
	test  map[string]string
	line  *regexp.Regexp // the figure is the last group of the last match
	label string
}{
	opMul: {map[string]string{"P-224": "ecdhp224", "P-256": "ecdhp256"},
		regexp.MustCompile(`ecdh \((nistp\d+)\)\s+[\d.]+s\s+([\d.]+)`), ""},
	opBase: {map[string]string{"P-224": "ecdsap224", "P-256": "ecdsap256"},
		regexp.MustCompile(`ecdsa \((nistp\d+)\)\s+[\d.]+s\s+[\d.]+s\s+([\d.]+)`), " (ECDSA signing: k·G and an inversion)"},
	opECDSA: {map[string]string{"P-224": "ecdsap224", "P-256": "ecdsap256"},
		regexp.MustCompile(`ecdsa \((nistp\d+)\)\s+[\d.]+s\s+[\d.]+s\s+[\d.]+\s+([\d.]+)`), " (ECDSA verification)"},
	opSign: {map[string]string{"P-224": "ecdsap224", "P-256": "ecdsap256"},
		regexp.MustCompile(`ecdsa \((nistp\d+)\)\s+[\d.]+s\s+[\d.]+s\s+([\d.]+)`), " (ECDSA signing)"},
}

// runOpenSSLPeer is opensslPeer, which tests replace.
var runOpenSSLPeer = opensslPeer

// opensslPeer runs openssl speed on every core for the curve and the
// operation, if it has a test for them.
func opensslPeer(c *curves.Curve, op string, seconds int) (benchPeer, error) {
	sp := opensslSpeed[op]
	alg := sp.test[c.Name()]
	if alg == "" {
		return benchPeer{}, fmt.Errorf("openssl speed has no %s test for %s", op, c.Name())
	}
	path, err := exec.LookPath("openssl")
	if err != nil {
		return benchPeer{}, err
	}
	args := []string{"speed", "-seconds", strconv.Itoa(seconds), "-multi", strconv.Itoa(runtime.NumCPU()), alg}
	out, err := exec.Command(path, args...).CombinedOutput()
	if err != nil {
		return benchPeer{}, fmt.Errorf("openssl speed: %v", err)
	}
	ops, err := opensslFigure(op, string(out))
	if err != nil {
		return benchPeer{}, err
	}
	return benchPeer{Curve: c.Name(), Op: op, Name: fmt.Sprintf("openssl speed -multi %d%s", runtime.NumCPU(), sp.label), OpsPerSec: ops,
		Command: "openssl " + strings.Join(args, " ")}, nil
}

// opensslFigure reads the operation's figure, per second, from the output
// of openssl speed.
func opensslFigure(op, out string) (float64, error) {
	m := opensslSpeed[op].line.FindAllStringSubmatch(out, -1)
	if len(m) == 0 {
		return 0, fmt.Errorf("openssl speed: no %s figure in its output", op)
	}
	last := m[len(m)-1]
	return strconv.ParseFloat(last[len(last)-1], 64)
}

// benchVariant is one point of the grid for a curve: what the backend is
// configured with.
type benchVariant struct {
	schedule ladder.Kind
	ext      basext.Variant
	bits     int // RNS channel width
	mapping  string
	ipb      int
	gpus     int // the first gpus devices share each batch; 0 means all
}

// benchGrid lists the configurations a backend distinguishes: schedule ×
// base extension × channel width × mapping × items per block × GPUs on the
// gpu backend (the combinations the kernel has, for the tile mapping its
// fixed items per block only, for the spread mapping up to its most, for
// the mma and pair mappings their whole warps up to their most),
// schedule × base extension × channel width on rns-cpu (Kawamura's on
// 16-bit channels only), a single one on cpu. A zero value (a width or
// items per block of 0, mapping "default") is left for the library to
// choose, and kept where some choice of it has the combination.
func benchGrid(b ecmul.Backend, schedules []ladder.Kind, exts []basext.Variant, widths []int, mappings []string, ipbs, gpus []int) []benchVariant {
	var out []benchVariant
	switch b {
	case ecmul.GPU:
		for _, s := range schedules {
			for _, e := range exts {
				for _, w := range widths {
					for _, m := range mappings {
						if !kernelHas(s, e, m, w) {
							continue
						}
						for _, n := range ipbs {
							if n != 0 && (m == "tile" && n != kernels.TileItems || m == "spread" && n > spreadMaxItems ||
								(m == "mma" || m == "pair") && !wholeWarps(m, n)) {
								continue
							}
							for _, g := range gpus {
								out = append(out, benchVariant{schedule: s, ext: e, bits: w, mapping: m, ipb: n, gpus: g})
							}
						}
					}
				}
			}
		}
	case ecmul.RNSCPU:
		for _, s := range schedules {
			for _, e := range exts {
				for _, w := range widths {
					if w == 0 || w == rns.ChannelBits || e == basext.Shenoy {
						out = append(out, benchVariant{schedule: s, ext: e, bits: w})
					}
				}
			}
		}
	default:
		out = append(out, benchVariant{})
	}
	return out
}

// kernelHas reports whether the kernel has entry points for the schedule,
// base extension, mapping and channel width; for the mapping "default" or
// width 0, left for the library to choose, whether it has them for some
// choice.
func kernelHas(s ladder.Kind, e basext.Variant, mapping string, bits int) bool {
	maps, widths := []string{mapping}, []string{kernels.ChannelTag(bits)}
	if mapping == "default" {
		maps = kernels.Mappings
	}
	if bits == 0 {
		widths = kernels.Channels
	}
	for _, m := range maps {
		for _, w := range widths {
			if kernels.Supports(s.String(), e.String(), m, w) {
				return true
			}
		}
	}
	return false
}

// spreadMaxItems is the most items a block of the spread mapping holds,
// whatever the channels: a warp each.
var spreadMaxItems = kernels.Kernel{Mapping: "spread"}.MaxItemsPerBlock(0)

// wholeWarps reports whether n items per block fill whole warps of the mma
// or pair mapping, whose blocks are whole warps, up to the most of a block
// (whatever the channels: 8 or 16 items a warp).
func wholeWarps(mapping string, n int) bool {
	k := kernels.Kernel{Mapping: mapping}
	return n%k.ItemsPerWarp(0) == 0 && n <= k.MaxItemsPerBlock(0)
}

// options returns the engine options of the variant on backend b, and its
// gpu backend's settings.
func (v benchVariant) options(b ecmul.Backend, chunk int, hostFinish bool, finishItems int) (ecmul.Options, diag.Tuning) {
	o := ecmul.Options{Backend: b}
	g := diag.Tuning{Schedule: scheduleOf(v.schedule), Extension: extensionOf(v.ext), ChannelBits: v.bits}
	if b == ecmul.GPU {
		g.Mapping, _ = diag.ParseMapping(v.mapping) // "default" is MappingDefault
		g.ItemsPerBlock, g.Chunk, g.HostFinish, g.FinishItemsPerThread = v.ipb, chunk, hostFinish, finishItems
		for d := range v.gpus {
			o.Devices = append(o.Devices, d)
		}
	}
	return o, g
}

// label names the variant the way results do.
func (v benchVariant) label(b ecmul.Backend) string {
	switch b {
	case ecmul.GPU:
		gpus := "all"
		if v.gpus > 0 {
			gpus = strconv.Itoa(v.gpus)
		}
		return fmt.Sprintf("%s %s bits=%s mapping=%s ipb=%s gpus=%s", v.schedule, v.ext, orUnset(v.bits), v.mapping, orUnset(v.ipb), gpus)
	case ecmul.RNSCPU:
		return fmt.Sprintf("%s %s bits=%s", v.schedule, v.ext, orUnset(v.bits))
	}
	return ""
}

// orUnset writes n, or "default" for 0: left for the library to choose.
func orUnset(n int) string {
	if n == 0 {
		return "default"
	}
	return strconv.Itoa(n)
}

// benchConfig is a parsed bench command line.
type benchConfig struct {
	curves            []*curves.Curve
	ops               []string // opMul, opBase, opECDSA, opSign
	backend           ecmul.Backend
	schedules         []ladder.Kind
	exts              []basext.Variant
	widths            []int // RNS channel widths
	mappings          []string
	ipbs, batches     []int
	gpus              []int // numbers of devices; 0 stands for all
	reps, chunk       int
	peers             bool
	hostFinish        bool // diag.Tuning.HostFinish
	finishItems       int  // diag.Tuning.FinishItemsPerThread
	peerSeconds       int
	jsonPath, csvPath string
	gpuPeersPath      string
	cpuProfilePath    string
	tracePath         string
	execTracePath     string
}

// benchMappings are the mappings --mapping takes: the kernel's, and
// "default", ecmul.MappingDefault.
var benchMappings = append([]string{"default"}, kernels.Mappings...)

// benchFlags are the settings of bench as given, lists unparsed.
type benchFlags struct {
	curves, backend, schedules, exts, widths, mappings string
	ipbs, gpus, batches                                string
	reps, chunk, peerSeconds, finishItems              int
	peers, hostFinish                                  bool
	json, csv, cpuProfile, gpuPeers, trace, execTrace  string

	// ops is --op, set by benchFlagSet; nil, in benchFlags made otherwise,
	// stands for its default, mul.
	ops *string
}

func benchFlagSet(f *benchFlags) *flag.FlagSet {
	fs := newFlagSet("bench", benchHelp)
	fs.StringVar(&f.curves, "curve", "p224", "comma-separated curves: p224, p256, secp256k1")
	fs.StringVar(&f.backend, "backend", "auto", "backend: auto, gpu, rns-cpu or cpu")
	f.ops = new(string)
	fs.StringVar(f.ops, "op", opMul, "comma-separated operations: mul (k·P), base (k·G through ScalarBaseMultBytes), ecdsa (ECDSA verification through ecdsa.Verify), sign (ECDSA signing through ecdsa.Sign)")
	fs.StringVar(&f.schedules, "schedule", "default", "comma-separated ladder schedules (rns-cpu and gpu): coz, paper, default (the library's)")
	fs.StringVar(&f.exts, "ext", "default", "comma-separated base extensions (rns-cpu and gpu): shenoy, kawamura, default (the library's)")
	fs.StringVar(&f.widths, "channel-bits", "default", "comma-separated RNS channel widths (rns-cpu and gpu): 16, 30 (Shenoy only), default (the library's)")
	fs.StringVar(&f.mappings, "mapping", "default", "comma-separated thread mappings of the gpu backend: warp, block, tile (the tensor cores, Shenoy only, 16 items per block), spread (a warp per item, co-Z and Shenoy only), mma (8 items a warp, the tensor cores in registers, co-Z and the combs with Shenoy on 30-bit channels only, items per block a multiple of 8), pair (the mma mapping with 16 items a warp, items per block a multiple of 16), default (the library's choice: pair where the kernel has it, else warp or block, and spread for small chunks)")
	fs.StringVar(&f.ipbs, "ipb", "default", "comma-separated items per block of the gpu backend: numbers, default (the library's for the mapping)")
	fs.StringVar(&f.gpus, "gpus", "all", "comma-separated numbers of GPUs sharing each batch (the first N devices), or all (gpu)")
	fs.StringVar(&f.batches, "batch", "1,16,256,4096,65536,1048576", "comma-separated batch sizes (measured in increasing order)")
	fs.IntVar(&f.reps, "reps", 3, "timed runs per configuration and batch, after one warm-up run (the median is reported)")
	fs.IntVar(&f.chunk, "chunk", 0, "most items per kernel launch (gpu); 0 for the library's: 131,072, and one signing step (262,144) for sign")
	fs.BoolVar(&f.hostFinish, "host-finish", false, "finish the items on the host (CRT, inversion, bytes) instead of in the GPU's finish kernel (gpu)")
	fs.IntVar(&f.finishItems, "finish-items", 0, fmt.Sprintf("items each thread of the GPU's finish kernel takes, sharing one inversion, in a chunk that three or more chunks of its batch follow (the last three take at most 16): 1 to %d, 0 for the library's (gpu)", diag.MaxFinishItemsPerThread))
	fs.BoolVar(&f.peers, "peers", true, "measure the CPU peers in the same run")
	fs.IntVar(&f.peerSeconds, "peer-seconds", 3, "seconds of each openssl speed run")
	fs.StringVar(&f.json, "json", "", "write the full report as JSON to this file")
	fs.StringVar(&f.csv, "csv", "", "write the results and peers as CSV to this file")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured runs to this file (for go tool pprof): where the host's time goes")
	fs.StringVar(&f.trace, "trace", "", "write a trace of every timed run to this file, one JSON line each: every GPU chunk's stages and every GPU batch on the host's clock (gpu; the host waits for a device's stream once for each kernel a run uses there)")
	fs.StringVar(&f.execTrace, "exectrace", "", "write a Go execution trace of the whole run to this file (for go tool trace): when each goroutine and thread of the host ran, and what it waited for")
	fs.StringVar(&f.gpuPeers, "gpu-peers", "", "record the GPU peers measured in the same device call: a file of lines \"NAME batch=N op/s=X\" (gecc.sh's: gecc, gecc-fixed, gecc-verify, gecc-sign)")
	return fs
}

// parseBenchFlags checks the whole command line before anything is
// measured. Its errors are usage errors.
func parseBenchFlags(f *benchFlags) (*benchConfig, error) {
	cfg := &benchConfig{reps: f.reps, chunk: f.chunk, hostFinish: f.hostFinish, finishItems: f.finishItems, peers: f.peers, peerSeconds: f.peerSeconds,
		jsonPath: f.json, csvPath: f.csv, gpuPeersPath: f.gpuPeers, cpuProfilePath: f.cpuProfile, tracePath: f.trace, execTracePath: f.execTrace}
	switch {
	case cfg.reps < 1:
		return nil, fmt.Errorf("--reps must be at least 1, not %d", cfg.reps)
	case cfg.chunk < 0:
		return nil, fmt.Errorf("--chunk must be 0 (the library's) or more, not %d", cfg.chunk)
	case cfg.peerSeconds < 1:
		return nil, fmt.Errorf("--peer-seconds must be at least 1, not %d", cfg.peerSeconds)
	case cfg.finishItems < 0 || cfg.finishItems > diag.MaxFinishItemsPerThread:
		return nil, fmt.Errorf("--finish-items must be 0 to %d, not %d", diag.MaxFinishItemsPerThread, cfg.finishItems)
	}
	var err error
	if cfg.backend, err = parseBackend(f.backend); err != nil {
		return nil, flagNamed("--backend", err)
	}
	if err := cfg.parseNames(f); err != nil {
		return nil, err
	}
	return cfg, cfg.parseNumbers(f)
}

// parseNames reads the lists of names: curves, operations, schedules, base
// extensions and mappings.
func (cfg *benchConfig) parseNames(f *benchFlags) error {
	var err error
	if cfg.curves, err = nameList("--curve", f.curves, curves.ByName); err != nil {
		return err
	}
	ops := opMul
	if f.ops != nil {
		ops = *f.ops
	}
	if cfg.ops, err = nameList("--op", ops, parseOp); err != nil {
		return err
	}
	if cfg.schedules, err = nameList("--schedule", f.schedules, orDefault(parseSchedule)); err != nil {
		return err
	}
	if cfg.exts, err = nameList("--ext", f.exts, orDefault(basext.ParseVariant)); err != nil {
		return err
	}
	cfg.mappings, err = nameList("--mapping", f.mappings, func(m string) (string, error) {
		if m = strings.ToLower(m); !slices.Contains(benchMappings, m) {
			return "", fmt.Errorf("unknown mapping %q (%s)", m, strings.Join(benchMappings, ", "))
		}
		return m, nil
	})
	return err
}

// parseNumbers reads the lists of numbers: channel widths, items per
// block, GPU counts and batch sizes. A width or items per block of 0 is
// "default", left for the library to choose; a GPU count of 0 is all.
func (cfg *benchConfig) parseNumbers(f *benchFlags) error {
	var err error
	unset := map[string]int{"default": 0}
	if cfg.widths, err = intList("--channel-bits", f.widths, 1, unset); err != nil {
		return err
	}
	for _, w := range cfg.widths {
		if w != 0 && !slices.Contains(rns.Widths, w) {
			return fmt.Errorf("--channel-bits %d: want %d or %d", w, rns.Widths[0], rns.Widths[1])
		}
	}
	if cfg.ipbs, err = intList("--ipb", f.ipbs, 1, unset); err != nil {
		return err
	}
	if cfg.gpus, err = intList("--gpus", f.gpus, 1, map[string]int{"all": 0}); err != nil {
		return err
	}
	if cfg.batches, err = intList("--batch", f.batches, 1, nil); err != nil {
		return err
	}
	slices.Sort(cfg.batches)
	return nil
}
