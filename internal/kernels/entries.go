package kernels

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rnsec/ecmul/internal/rns"
)

// The kernel's entry points are every combination of these lists: adding a
// curve, schedule, base extension, mapping or channel width here (and its
// CUDA code) adds its entry points; gen.go writes them into schedule_gen.cuh for ecmul.cu,
// the GPU harness and the CPU emulation, and package gpu finds them by Find.
var (
	// Curves are the curves the kernel is built for, by curves.Curve.Name,
	// with their tags in entry names.
	Curves = []CurveTag{{"P-224", "p224"}, {"P-256", "p256"}, {"secp256k1", "secp256k1"}}
	// Schedules are the ladder schedules (ladder.Kind names), and the
	// fixed-base k·G, whose entry points read G's table from the constants
	// and no input rows: "comb", constant time, and "combvt", the
	// variable-time comb of public scalars.
	Schedules = []string{"coz", "paper", "comb", "combvt"}
	// Exts are the base extensions (basext.Variant names).
	Exts = []string{"shenoy", "kawamura"}
	// Mappings are the thread mappings: "warp" keeps whole items inside a
	// warp, 16 or 32 lanes each; "block" is the paper's block-wide mapping,
	// n+1 threads per item packed across the block; "tile" packs them the
	// same way in blocks of exactly TileItems items, whose base extensions
	// run on the tensor cores as 8-bit integer matrix products; "spread"
	// gives an item a whole warp, its ⌊32/(n+1)⌋ groups of n+1 lanes each
	// computing different products of a multiplication set, for the
	// latency of small batches; "mma" puts 8 items in a warp, 4 lanes each
	// (lane l: item l/4 of the warp, lane l mod 4 of it), every lane owning
	// several channels of its item, and runs the base extensions as mma.sync
	// 8-bit integer products on the tensor cores whose fragments stay in
	// registers, in blocks of whole warps; "pair" is the mma mapping with
	// 16 items in a warp, two in each group of 4 lanes (lane l: items l/4
	// and l/4 + 8 of the warp), so that no lane holds padding.
	Mappings = mappingNames(mappingShapes)
	// Channels tag the RNS channel widths of rns.Widths: "c16", moduli
	// 2^16 − c, the paper's; "c30", moduli 2^30 − c, a quarter as many
	// products per base extension.
	Channels = channelTags(rns.Widths)
)

// mappingShape is how a mapping places an item's threads, by its name in
// Mappings: every method of Kernel that depends on the mapping reads it
// here.
type mappingShape struct {
	name       string
	shape      int  // the ThreadShape code (shape.cuh's EcmShape)
	lanes      int  // threads per item; 0: n+1, one per channel and one for m_e
	registers  int  // the cap on registers per thread; 0: the schedule's (registerCaps)
	fixed      int  // the items every block holds; 0: any number up to MaxItemsPerBlock
	wholeWarps bool // blocks of whole warps only: the kernel traps on others
	// The entry points its CUDA code has: the schedules it runs with
	// Shenoy's α on the channels of widths, and those of kawamura also
	// with Kawamura's α on 16-bit channels (rns.Params.Kawamura).
	schedules, widths, kawamura []string
}

// mappingShapes are the mappings, in the order of Mappings. The tile
// mapping runs the co-Z ladder with Shenoy's α on 16-bit channels only:
// Kawamura's needs every residue of a row whole, which its byte matrices
// do not keep, and the paper's sets of 7 products would need more than the
// 48 KiB of static shared memory a block may have for their product
// matrices. The spread mapping, a latency variant of the default ladder,
// runs the co-Z ladder. The mma and pair mappings run the co-Z ladder and
// both combs on 30-bit channels only, the variable-time comb with them
// alone (the default configurations of the combs; on others its work goes
// to the constant-time comb).
var mappingShapes = []mappingShape{
	{name: "warp", shape: ShapeWarp, schedules: packedSchedules, widths: both, kawamura: ladderSchedules},
	{name: "block", shape: ShapePacked, schedules: packedSchedules, widths: both, kawamura: ladderSchedules},
	{name: "tile", shape: ShapePacked, fixed: TileItems, schedules: cozOnly, widths: only16},
	{name: "spread", shape: ShapeSpread, registers: spreadRegisters, wholeWarps: true, schedules: cozOnly, widths: both},
	{name: "mma", shape: ShapeWarps, lanes: mmaLanes, registers: mmaRegisters, wholeWarps: true, schedules: tensorSchedules, widths: only30},
	{name: "pair", shape: ShapeWarps, lanes: pairLanes, registers: pairRegisters, wholeWarps: true, schedules: tensorSchedules, widths: only30},
}

// The schedule and width lists of mappingShapes.
var (
	cozOnly         = []string{"coz"}
	ladderSchedules = []string{"coz", "paper"}
	packedSchedules = []string{"coz", "paper", "comb"}
	tensorSchedules = []string{"coz", "comb", "combvt"}
	only16, only30  = []string{"c16"}, []string{"c30"}
	both            = []string{"c16", "c30"}
)

func mappingNames(ms []mappingShape) []string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.name
	}
	return names
}

// mapping returns the shape of k's mapping (the zero shape, ShapePacked of
// n+1 lanes, for a name not in Mappings, which Find refuses).
func (k Kernel) mapping() mappingShape {
	for _, m := range mappingShapes {
		if m.name == k.Mapping {
			return m
		}
	}
	return mappingShape{}
}

func channelTags(widths []int) []string {
	tags := make([]string, len(widths))
	for i, w := range widths {
		tags[i] = ChannelTag(w)
	}
	return tags
}

// ChannelBits returns the width of the channels a tag of Channels names.
func ChannelBits(tag string) int {
	bits, _ := strconv.Atoi(strings.TrimPrefix(tag, "c"))
	return bits
}

// ChannelTag returns the Channels tag of bits-wide channels.
func ChannelTag(bits int) string { return fmt.Sprintf("c%d", bits) }

// Arg is one argument of every entry point: its name and its C type.
type Arg struct{ Name, CType string }

// Args are the arguments of every entry point, in order (README.md
// gives their layouts): gen.go writes them into schedule_gen.cuh, where
// ecmul.cu declares its entry points with them (ECM_KERNEL_PARAMS) and the
// GPU harness and the CPU emulation pass them (ECM_KERNEL_ARG_LIST,
// ECM_KERNEL_ARGS). A launch passes one pointer per argument, to a value of
// its C type: 8 bytes for a device pointer.
var Args = []Arg{
	{"consts", "const uint32_t* __restrict__"},  // ladder.Setup.KernelConstants
	{"in", "const uint32_t* __restrict__"},      // InputRows rows of stride words
	{"scalars", "const uint32_t* __restrict__"}, // ScalarWords rows of stride words
	{"out", "uint32_t* __restrict__"},           // OutputRows rows of stride words
	{"count", "uint32_t"},                       // the items, columns 0 to count−1
	{"stride", "uint32_t"},                      // the words of a row
}

// ArgIndex returns the position of the argument named name in Args, or −1.
func ArgIndex(name string) int {
	return slices.IndexFunc(Args, func(a Arg) bool { return a.Name == name })
}

// TileItems is the number of items of a block of the tile mapping: the
// rows of one tensor-core matrix tile, two bytes per residue.
const TileItems = 16

// Supports reports whether entry points exist for a schedule, base
// extension, mapping and channel width (on every curve).
func Supports(schedule, ext, mapping, channels string) bool {
	return Kernel{Schedule: schedule, Ext: ext, Mapping: mapping, Channels: channels}.built()
}

// built reports whether the entry point has CUDA code: a combination its
// mapping's row of mappingShapes lists.
func (k Kernel) built() bool {
	m := k.mapping()
	if !slices.Contains(m.schedules, k.Schedule) || !slices.Contains(m.widths, k.Channels) {
		return false
	}
	return k.Ext == "shenoy" || k.Ext == "kawamura" && k.Channels == "c16" && slices.Contains(m.kawamura, k.Schedule)
}

// runs says what a mapping's CUDA code runs, as Find's errors give it.
func (m mappingShape) runs() string {
	s := fmt.Sprintf("%s with the shenoy extension on %s", schedulesText(m.schedules), widthsText(m.widths))
	if len(m.kawamura) > 0 {
		s += fmt.Sprintf(", and %s with the kawamura extension on 16-bit channels (c16)", schedulesText(m.kawamura))
	}
	return s
}

// schedulesText reads "the coz schedule" or "the coz, comb and combvt
// schedules".
func schedulesText(s []string) string {
	if len(s) == 1 {
		return "the " + s[0] + " schedule"
	}
	return "the " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1] + " schedules"
}

// widthsText reads "30-bit channels (c30)" or "16- or 30-bit channels".
func widthsText(tags []string) string {
	if len(tags) == 1 {
		return fmt.Sprintf("%d-bit channels (%s)", ChannelBits(tags[0]), tags[0])
	}
	bits := make([]string, len(tags))
	for i, t := range tags {
		bits[i] = strconv.Itoa(ChannelBits(t))
	}
	return strings.Join(bits[:len(bits)-1], "-, ") + "- or " + bits[len(bits)-1] + "-bit channels"
}

// registerCaps is each schedule's cap on registers per thread
// (__maxnreg__), the fastest of 56 to 96 on an H200 (README.md):
// under 64 registers twice as many warps share an SM, which the co-Z
// ladder's short multiplication sets need more than the few bytes it spills.
// The comb's sets of four products spill 124 bytes under 64: on an H100
// its P-256 warp entry ran at 21.1 M op/s under 80 against 20.1 M under 64
// (bench/h100/2026-11-25-comb/).
var registerCaps = map[string]int{"coz": 64, "paper": 96, "comb": 80, "combvt": 80}

// CurveTag names a curve in entry names.
type CurveTag struct{ Curve, Tag string }

// Kernel is one entry point: ecm_ladder_<tag>_<schedule>_<ext>_<mapping>_<channels>,
// with the arguments and launch limits README.md gives.
type Kernel struct {
	Curve, Tag, Schedule, Ext, Mapping, Channels string
}

// Name returns the entry point's symbol.
func (k Kernel) Name() string {
	return "ecm_ladder_" + k.Tag + "_" + k.Schedule + "_" + k.Ext + "_" + k.Mapping + "_" + k.Channels
}

// Lanes returns the threads of one item, for n channels per base: n+1, one
// per channel and one for m_e; mmaLanes in the mma mapping, whatever n,
// each lane owning several of the item's channels; pairLanes in the pair
// mapping, whose groups of 4 lanes hold two items.
func (k Kernel) Lanes(n int) int {
	if l := k.ItemLanes(); l > 0 {
		return l
	}
	return n + 1
}

// ItemLanes returns the threads of an item that k's mapping fixes (4 in
// the mma mapping, 2 in the pair mapping), or 0 where an item takes a lane
// for each channel and one for m_e (Lanes: n+1).
func (k Kernel) ItemLanes() int { return k.mapping().lanes }

// WholeWarps reports whether k's blocks must be whole warps (the kernel
// traps on others): the spread mapping's and mma.sync's.
func (k Kernel) WholeWarps() bool { return k.mapping().wholeWarps }

// mmaLanes is the lanes of an item in the mma mapping: a quarter of an
// mma.sync fragment's rows, 8 items to a warp; pairLanes the threads per
// item of the pair mapping, 16 items to a warp, an item to each row.
const (
	mmaLanes  = 4
	pairLanes = 2
)

// ItemsPerWarp returns the items a warp holds in the warp mapping, for n
// channels per base: ⌊32/(n+1)⌋, the last one taking the lanes left over
// (which compute copies of its m_e lane); 8 in the mma mapping, 4 lanes
// each, and 16 in the pair mapping; 0 for the other mappings, whose items
// run across warps.
func (k Kernel) ItemsPerWarp(n int) int {
	switch k.ThreadShape() {
	case ShapeWarp, ShapeWarps:
		return 32 / k.Lanes(n)
	}
	return 0
}

// Threads returns the block size that holds items items, for n channels per
// base: whole warps of ItemsPerWarp items, then n+1 threads per item left;
// a warp per item in the spread mapping; in the mma and pair mappings the
// whole warps of 8 or 16 items that hold them, 32·⌈items/8⌉ threads (or
// /16), the last warp's item slots past items computing copies that are
// not stored. The kernel's ecm_items_per_block (shape.cuh) inverts
// it, in the mma and pair mappings up to that rounding.
func (k Kernel) Threads(n, items int) int {
	switch k.ThreadShape() {
	case ShapeSpread:
		return 32 * items
	case ShapeWarps:
		ipw := k.ItemsPerWarp(n)
		return 32 * ((items + ipw - 1) / ipw)
	}
	if ipw := k.ItemsPerWarp(n); ipw > 0 {
		return items/ipw*32 + items%ipw*(n+1)
	}
	return items * (n + 1)
}

// ItemsPerBlock returns the items a block of threads threads holds, for n
// channels per base, as the kernel counts them (ecm_items_per_block in
// shape.cuh): the inverse of Threads. The mma mapping's blocks,
// whole warps of 4-lane items, hold threads/32·8, the pair mapping's
// threads/32·16.
func (k Kernel) ItemsPerBlock(n, threads int) int {
	switch k.ThreadShape() {
	case ShapeSpread:
		return threads / 32
	case ShapeWarps:
		return threads / 32 * (32 / k.Lanes(n))
	case ShapeWarp:
		perWarp := 32 / k.Lanes(n)
		return threads/32*perWarp + min(threads%32/k.Lanes(n), perWarp)
	}
	return threads / k.Lanes(n)
}

// CheckBlock says why a block of threads threads does not run the entry
// point for n channels per base, or returns nil: more than MaxThreads, a
// spread or mma block that is not whole warps (mma.sync takes every lane
// of a warp), or a tile block of other than TileItems items all trap in
// the kernel, and a block of no whole item computes nothing.
func (k Kernel) CheckBlock(n, threads int) error {
	switch {
	case threads < 1 || threads > MaxThreads:
		return fmt.Errorf("kernels: %s: a block of %d threads traps: the kernel takes 1 to %d", k.Name(), threads, MaxThreads)
	case k.WholeWarps() && threads%32 != 0:
		return fmt.Errorf("kernels: %s: a block of %d threads traps: the %s mapping takes whole warps", k.Name(), threads, k.Mapping)
	case k.FixedItemsPerBlock() > 0 && threads != k.FixedItemsPerBlock()*k.Lanes(n):
		return fmt.Errorf("kernels: %s: a block of %d threads traps: the %s mapping takes exactly %d", k.Name(), threads, k.Mapping, k.FixedItemsPerBlock()*k.Lanes(n))
	case k.ItemsPerBlock(n, threads) == 0:
		return fmt.Errorf("kernels: %s: a block of %d threads holds no item of %d lanes", k.Name(), threads, k.Lanes(n))
	}
	return nil
}

// Shape codes of ThreadShape, the kernel's EcmShape (shape.cuh).
const (
	ShapePacked = 0 // n+1 threads per item packed across the block (block, tile)
	ShapeWarp   = 1 // whole items inside a warp
	ShapeSpread = 2 // a warp per item
	ShapeWarps  = 3 // whole items inside a warp, in blocks of whole warps only (mma, pair)
)

// ThreadShape returns how the mapping places an item's threads in a block,
// as a Shape code.
func (k Kernel) ThreadShape() int { return k.mapping().shape }

// spreadRegisters is the spread mapping's cap on registers per thread: it
// runs a few warps per SM, whose latency spills to local memory would add
// to, so it takes enough registers for none.
const spreadRegisters = 128

// mmaRegisters is the mma mapping's cap on registers per thread: a lane
// holds three channels of every value, so it takes more registers than the
// mappings of one channel per lane. On an H100 (P-256, 2^20 items) caps of
// 128, 152 and 168 gave 7.2, 7.6 and 7.5 M op/s, with spills only under 128.
const mmaRegisters = 152

// pairRegisters is the pair mapping's cap: a lane holds five channel
// slots of every value, two items' worth. On an H200 (P-256, 2^20 items,
// 128 threads) caps of 200, 232 and 255 gave 8.27, 8.31 and 8.52 M op/s;
// below 200 it spills, and smaller blocks that fit more warps gained
// nothing (bench/h200/2026-11-28-pair/).
const pairRegisters = 255

// MaxRegisters returns the entry point's cap on registers per thread.
func (k Kernel) MaxRegisters() int {
	if r := k.mapping().registers; r > 0 {
		return r
	}
	return registerCaps[k.Schedule]
}

// MaxItemsPerBlock returns the most items a block of at most MaxThreads
// threads holds, for n channels per base: TileItems for the tile mapping,
// MaxThreads/32 warps of 8 items for the mma mapping (16 for pair).
func (k Kernel) MaxItemsPerBlock(n int) int {
	if f := k.FixedItemsPerBlock(); f > 0 {
		return f
	}
	if k.ThreadShape() == ShapeSpread {
		return MaxThreads / 32
	}
	if ipw := k.ItemsPerWarp(n); ipw > 0 {
		return MaxThreads / 32 * ipw
	}
	return MaxThreads / k.Lanes(n)
}

// FixedItemsPerBlock returns the items every block must hold (TileItems for
// the tile mapping), or 0 when any number up to MaxItemsPerBlock runs.
func (k Kernel) FixedItemsPerBlock() int { return k.mapping().fixed }

// Entries returns every entry point, in the order of the lists above.
func Entries() []Kernel {
	var out []Kernel
	for _, c := range Curves {
		for _, s := range Schedules {
			for _, e := range Exts {
				for _, m := range Mappings {
					for _, w := range Channels {
						if k := (Kernel{Curve: c.Curve, Tag: c.Tag, Schedule: s, Ext: e, Mapping: m, Channels: w}); k.built() {
							out = append(out, k)
						}
					}
				}
			}
		}
	}
	return out
}

// Find returns the entry point for a curve (curves.Curve.Name), schedule,
// base extension, mapping and channel width (a Channels tag), or an error
// naming the one that is not built.
func Find(curve, schedule, ext, mapping, channels string) (Kernel, error) {
	i := slices.IndexFunc(Curves, func(c CurveTag) bool { return c.Curve == curve })
	switch {
	case i < 0:
		return Kernel{}, fmt.Errorf("kernels: no kernel for curve %q", curve)
	case !slices.Contains(Schedules, schedule):
		return Kernel{}, fmt.Errorf("kernels: no kernel for schedule %q (want %s)", schedule, strings.Join(Schedules, " or "))
	case !slices.Contains(Exts, ext):
		return Kernel{}, fmt.Errorf("kernels: unknown base extension %q (want %s)", ext, strings.Join(Exts, " or "))
	case !slices.Contains(Mappings, mapping):
		return Kernel{}, fmt.Errorf("kernels: unknown mapping %q (want %s)", mapping, strings.Join(Mappings, " or "))
	case !slices.Contains(Channels, channels):
		return Kernel{}, fmt.Errorf("kernels: unknown channel width %q (want %s)", channels, strings.Join(Channels, " or "))
	}
	k := Kernel{Curve: curve, Tag: Curves[i].Tag, Schedule: schedule, Ext: ext, Mapping: mapping, Channels: channels}
	if k.built() {
		return k, nil
	}
	err := fmt.Errorf("kernels: the %s mapping runs only %s, not %s with %s on %s",
		mapping, k.mapping().runs(), schedule, ext, widthsText([]string{channels}))
	if !slices.Contains(k.mapping().schedules, schedule) {
		err = fmt.Errorf("%w; the %s schedule runs only on the %s mapping", err, schedule, orText(mappingsRunning(schedule)))
	}
	return Kernel{}, err
}

// orText reads "a", "a or b", "a, b or c".
func orText(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// mappingsRunning returns the mappings whose CUDA code runs schedule.
func mappingsRunning(schedule string) []string {
	var out []string
	for _, m := range mappingShapes {
		if slices.Contains(m.schedules, schedule) {
			out = append(out, m.name)
		}
	}
	return out
}

// ByName returns the entry point whose symbol is name.
func ByName(name string) (Kernel, error) {
	for _, k := range Entries() {
		if k.Name() == name {
			return k, nil
		}
	}
	return Kernel{}, fmt.Errorf("kernels: no entry point %q", name)
}

// FinishThreads is the block size of the finish kernel (finish.cuh) and of
// the prepare kernel (prepare.cuh), whose launches run one item per thread
// on ⌈count/FinishThreads⌉ blocks.
const FinishThreads = 128

// FinishItemsMax is the most items one thread of the finish kernel takes,
// with one inversion for all of them (Montgomery's trick): its arrays'
// length. A launch on count items of T threads in all, T·FinishItemsMax >=
// count, gives thread t the items t, t + T, t + 2T, … below count, so that
// the grid alone sets how many items each thread finishes.
const FinishItemsMax = 64

// FinishItemsPerThread is the items per thread of the library's finish
// launches (FinishGrid) in a chunk that later chunks of its batch overlap:
// the inversion, about 260 field products, is shared by that many items,
// each of which costs some 25 products of its own. On an H200
// (bench/h200/2026-11-28-d7-finish-64) 64 rather than 16 took P-224's k·G
// from 59.1 M to 62.1 M a second end to end.
const FinishItemsPerThread = FinishItemsMax

// FinishItemsLastChunk is the most items per thread of the finish launches
// of a batch's last chunks (the last three, which run side by side on the
// gpu backend's slots), which nothing after them overlaps: the batch's
// latency waits for their threads' chains of products, shorter with fewer
// items a thread.
const FinishItemsLastChunk = 16

// SignFinishItemsPerThread is the items per thread of a signing batch's
// finish launches, and so of its sign pack's, which takes the finish's
// grid. Fewer items a thread shorten the chains of products that follow
// each chunk's comb, but take more of the multiprocessors beside the next
// chunks' combs: with the steps overlapped (par.Pipeline), 64 rather than
// 16 took signing from 47.27 M/s to 49.63 M/s on P-224 and from 30.20 M/s
// to 34.49 M/s on P-256 at 2^22 items on an H200
// (bench/h200/2026-11-29-y-split/, call Y3).
const SignFinishItemsPerThread = FinishItemsPerThread

// FinishGrid returns the blocks of FinishThreads threads of a finish launch
// on count items at perThread items a thread (1 to FinishItemsMax; 0 for
// FinishItemsPerThread).
func FinishGrid(count, perThread int) int {
	if perThread <= 0 {
		perThread = FinishItemsPerThread
	}
	perThread = min(perThread, FinishItemsMax)
	threads := (count + perThread - 1) / perThread
	return (threads + FinishThreads - 1) / FinishThreads
}

// The prefixes of the entry points of the kernels around the ladder, one
// for each curve and channel width (ECM_CURVES in schedule_gen.cuh): the
// prepare kernel (prepare.cuh), before the ladder, and the finish kernel
// (finish.cuh), after it; the unpack kernel before the prepare and the pack
// kernel after the finish (wire.cuh); the verify kernel (verify.cuh), in the
// finish's place after the co-Z ladder for ECDSA verification, with its own
// unpack and pack kernels for a verify batch's bytes (verify.cuh), and the
// unpack and pack kernels of a signing batch on the comb (sign.cuh). The
// schedule is read from their constants (ladder.PrepareLayout,
// ladder.FinishLayout: the unpack kernels take the prepare's, the pack and
// verify kernels the finish's), not their names.
const (
	preparePrefix = "ecm_prepare_"
	finishPrefix  = "ecm_finish_"
	verifyPrefix  = "ecm_verify_"
	unpackPrefix  = "ecm_unpack_"
	packPrefix    = "ecm_pack_"
	// the verify batch's wire kernels
	verifyUnpackPrefix = "ecm_verifyunpack_"
	verifyPackPrefix   = "ecm_verifypack_"
	// the signing batch's wire kernels
	signUnpackPrefix = "ecm_signunpack_"
	signPackPrefix   = "ecm_signpack_"
)

// PrepareName returns the entry point of the prepare kernel for a curve
// (curves.Curve.Name) on channels of a Channels tag.
func PrepareName(curve, channels string) (string, error) {
	return itemKernel(preparePrefix, curve, channels)
}

// FinishName returns the entry point of the finish kernel for a curve
// (curves.Curve.Name) on channels of a Channels tag.
func FinishName(curve, channels string) (string, error) {
	return itemKernel(finishPrefix, curve, channels)
}

// VerifyName returns the entry point of the verify kernel for a curve
// (curves.Curve.Name) on channels of a Channels tag.
func VerifyName(curve, channels string) (string, error) {
	return itemKernel(verifyPrefix, curve, channels)
}

// UnpackName returns the entry point of the unpack kernel for a curve
// (curves.Curve.Name) on channels of a Channels tag.
func UnpackName(curve, channels string) (string, error) {
	return itemKernel(unpackPrefix, curve, channels)
}

// PackName returns the entry point of the pack kernel for a curve
// (curves.Curve.Name) on channels of a Channels tag.
func PackName(curve, channels string) (string, error) {
	return itemKernel(packPrefix, curve, channels)
}

// VerifyUnpackName returns the entry point of a verify batch's unpack
// kernel for a curve (curves.Curve.Name) on channels of a Channels tag.
func VerifyUnpackName(curve, channels string) (string, error) {
	return itemKernel(verifyUnpackPrefix, curve, channels)
}

// VerifyPackName returns the entry point of a verify batch's pack kernel
// for a curve (curves.Curve.Name) on channels of a Channels tag.
func VerifyPackName(curve, channels string) (string, error) {
	return itemKernel(verifyPackPrefix, curve, channels)
}

// SignUnpackName returns the entry point of a signing batch's unpack
// kernel for a curve (curves.Curve.Name) on channels of a Channels tag.
func SignUnpackName(curve, channels string) (string, error) {
	return itemKernel(signUnpackPrefix, curve, channels)
}

// SignPackName returns the entry point of a signing batch's pack kernel
// for a curve (curves.Curve.Name) on channels of a Channels tag.
func SignPackName(curve, channels string) (string, error) {
	return itemKernel(signPackPrefix, curve, channels)
}

func itemKernel(prefix, curve, channels string) (string, error) {
	for _, c := range Curves {
		if c.Curve == curve && slices.Contains(Channels, channels) {
			return prefix + c.Tag + "_" + channels, nil
		}
	}
	return "", fmt.Errorf("kernels: no %skernel for %s on %s channels", strings.TrimPrefix(prefix, "ecm_"), curve, channels)
}

// ParsePrepare returns the curve and Channels tag of a prepare entry
// point, and whether name is one.
func ParsePrepare(name string) (curve, channels string, ok bool) {
	return parseItemKernel(preparePrefix, name)
}

// ParseFinish returns the curve and Channels tag of a finish entry point,
// and whether name is one.
func ParseFinish(name string) (curve, channels string, ok bool) {
	return parseItemKernel(finishPrefix, name)
}

// ParseVerify returns the curve and Channels tag of a verify entry point,
// and whether name is one.
func ParseVerify(name string) (curve, channels string, ok bool) {
	return parseItemKernel(verifyPrefix, name)
}

// ParseUnpack returns the curve and Channels tag of an unpack entry point,
// and whether name is one.
func ParseUnpack(name string) (curve, channels string, ok bool) {
	return parseItemKernel(unpackPrefix, name)
}

// ParsePack returns the curve and Channels tag of a pack entry point, and
// whether name is one.
func ParsePack(name string) (curve, channels string, ok bool) {
	return parseItemKernel(packPrefix, name)
}

// ParseVerifyUnpack returns the curve and Channels tag of a verify batch's
// unpack entry point, and whether name is one.
func ParseVerifyUnpack(name string) (curve, channels string, ok bool) {
	return parseItemKernel(verifyUnpackPrefix, name)
}

// ParseVerifyPack returns the curve and Channels tag of a verify batch's
// pack entry point, and whether name is one.
func ParseVerifyPack(name string) (curve, channels string, ok bool) {
	return parseItemKernel(verifyPackPrefix, name)
}

// ParseSignUnpack returns the curve and Channels tag of a signing batch's
// unpack entry point, and whether name is one.
func ParseSignUnpack(name string) (curve, channels string, ok bool) {
	return parseItemKernel(signUnpackPrefix, name)
}

// ParseSignPack returns the curve and Channels tag of a signing batch's
// pack entry point, and whether name is one.
func ParseSignPack(name string) (curve, channels string, ok bool) {
	return parseItemKernel(signPackPrefix, name)
}

func parseItemKernel(prefix, name string) (curve, channels string, ok bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return "", "", false
	}
	for _, c := range Curves {
		for _, w := range Channels {
			if rest == c.Tag+"_"+w {
				return c.Curve, w, true
			}
		}
	}
	return "", "", false
}
