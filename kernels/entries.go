package kernels

import (
	"fmt"
	"slices"
	"strings"
)

// The kernel's entry points are every combination of these lists: adding a
// curve, schedule, base extension or mapping here (and its CUDA code) adds
// its entry points; gen.go writes them into schedule_gen.cuh for ecmul.cu,
// the GPU harness and the CPU emulation, and package gpu finds them by Find.
var (
	// Curves are the curves the kernel is built for, by curves.Curve.Name,
	// with their tags in entry names.
	Curves = []CurveTag{{"P-224", "p224"}, {"P-256", "p256"}, {"secp256k1", "secp256k1"}}
	// Schedules are the ladder schedules (ladder.Kind names).
	Schedules = []string{"coz", "paper"}
	// Exts are the base extensions (basext.Variant names).
	Exts = []string{"shenoy", "kawamura"}
	// Mappings are the thread mappings: "warp" keeps whole items inside a
	// warp, 16 or 32 lanes each; "block" is the paper's block-wide mapping,
	// n+1 threads per item packed across the block; "tile" packs them the
	// same way in blocks of exactly TileItems items, whose base extensions
	// run on the tensor cores as 8-bit integer matrix products.
	Mappings = []string{"warp", "block", "tile"}
)

// TileItems is the number of items of a block of the tile mapping: the
// rows of one tensor-core matrix tile, two bytes per residue.
const TileItems = 16

// Supports reports whether entry points exist for a schedule, base
// extension and mapping (on every curve).
func Supports(schedule, ext, mapping string) bool {
	return Kernel{Schedule: schedule, Ext: ext, Mapping: mapping}.built()
}

// built reports whether the entry point has CUDA code. The tile mapping
// runs the co-Z ladder with Shenoy's α only: Kawamura's needs every residue
// of a row whole, which its byte matrices do not keep, and the paper's sets
// of 7 products would need more than the 48 KiB of static shared memory a
// block may have for their product matrices.
func (k Kernel) built() bool {
	return k.Mapping != "tile" || k.Ext == "shenoy" && k.Schedule == "coz"
}

// registerCaps is each schedule's cap on registers per thread
// (__maxnreg__), the fastest of 56 to 96 on an H200 (kernels/README.md):
// under 64 registers twice as many warps share an SM, which the co-Z
// ladder's short multiplication sets need more than the few bytes it spills.
var registerCaps = map[string]int{"coz": 64, "paper": 96}

// CurveTag names a curve in entry names.
type CurveTag struct{ Curve, Tag string }

// Kernel is one entry point: ecm_ladder_<tag>_<schedule>_<ext>_<mapping>,
// with the arguments and launch limits kernels/README.md gives.
type Kernel struct {
	Curve, Tag, Schedule, Ext, Mapping string
}

// Name returns the entry point's symbol.
func (k Kernel) Name() string {
	return "ecm_ladder_" + k.Tag + "_" + k.Schedule + "_" + k.Ext + "_" + k.Mapping
}

// Lanes returns the threads one item takes, for n channels per base: the
// warp mapping gives an item a half warp when its n+1 lanes fit there and a
// whole warp otherwise; the block and tile mappings give it exactly n+1.
func (k Kernel) Lanes(n int) int {
	if k.Mapping != "warp" {
		return n + 1
	}
	if n+1 > 16 {
		return 32
	}
	return 16
}

// MaxRegisters returns the entry point's cap on registers per thread.
func (k Kernel) MaxRegisters() int { return registerCaps[k.Schedule] }

// MaxItemsPerBlock returns the most items a block of at most MaxThreads
// threads holds, for n channels per base: TileItems for the tile mapping.
func (k Kernel) MaxItemsPerBlock(n int) int {
	if k.Mapping == "tile" {
		return TileItems
	}
	return MaxThreads / k.Lanes(n)
}

// FixedItemsPerBlock returns the items every block must hold (TileItems for
// the tile mapping), or 0 when any number up to MaxItemsPerBlock runs.
func (k Kernel) FixedItemsPerBlock() int {
	if k.Mapping == "tile" {
		return TileItems
	}
	return 0
}

// Entries returns every entry point, in the order of the lists above.
func Entries() []Kernel {
	var out []Kernel
	for _, c := range Curves {
		for _, s := range Schedules {
			for _, e := range Exts {
				for _, m := range Mappings {
					if k := (Kernel{Curve: c.Curve, Tag: c.Tag, Schedule: s, Ext: e, Mapping: m}); k.built() {
						out = append(out, k)
					}
				}
			}
		}
	}
	return out
}

// Find returns the entry point for a curve (curves.Curve.Name), schedule,
// base extension and mapping, or an error naming the one that is not built.
func Find(curve, schedule, ext, mapping string) (Kernel, error) {
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
	}
	k := Kernel{Curve: curve, Tag: Curves[i].Tag, Schedule: schedule, Ext: ext, Mapping: mapping}
	if !k.built() {
		return Kernel{}, fmt.Errorf("kernels: the %s mapping runs only the coz schedule with the shenoy extension, not %s with %s", mapping, schedule, ext)
	}
	return k, nil
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
