package kernels_test

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/rns"
)

func TestSourcesMatchFatbin(t *testing.T) {
	sum, err := kernels.SourcesHash(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	if sum != kernels.SourcesSHA256 {
		t.Fatalf("sources and fatbin disagree: the sources hash to %s, ecmul.fatbin was built from %s; run make kernels on a machine with nvcc",
			sum, kernels.SourcesSHA256)
	}
}

// TestFatbinIsCompressed: the embedded image is a fatbin (its header's
// magic number) whose images are compressed (make kernels: KERNEL_COMPRESS),
// so that no entry point's name can be read from its bytes; the driver finds
// every one (internal/gpu: TestFatbinHasEntryPoints, on a GPU).
func TestFatbinIsCompressed(t *testing.T) {
	if len(kernels.Fatbin) < 16 {
		t.Fatal("no fatbin embedded")
	}
	if magic := binary.LittleEndian.Uint32(kernels.Fatbin); magic != 0xba55ed50 {
		t.Fatalf("the embedded image starts with %#x, not a fatbin's magic number 0xba55ed50", magic)
	}
	for _, k := range kernels.Entries() {
		if bytes.Contains(kernels.Fatbin, []byte(k.Name()+"\x00")) {
			t.Fatalf("entry point %s is readable in the fatbin: built without KERNEL_COMPRESS", k.Name())
		}
	}
}

// TestHeaderIsGenerated regenerates schedule_gen.cuh and compares: the
// header must follow entries.go, package ladder and basext.LayoutFor (the
// constant table's layout, ECM_BASEXT_LAYOUT).
func TestHeaderIsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	out := filepath.Join(t.TempDir(), "schedule_gen.cuh")
	cmd := exec.Command("go", "run", "gen.go", "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run gen.go: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("schedule_gen.cuh")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("schedule_gen.cuh is stale: run go generate ./internal/kernels, then make kernels")
	}
}

func TestEntries(t *testing.T) {
	all := kernels.Entries()
	// on 16-bit channels every combination of a ladder with the warp and
	// block mappings, and co-Z with Shenoy on the tile and spread mappings;
	// on 30-bit ones Shenoy on the warp and block mappings, and co-Z with
	// Shenoy on the spread, mma and pair mappings; on both, the comb with
	// Shenoy on the warp and block mappings, and on 30-bit channels on the
	// mma and pair mappings; the variable-time comb with Shenoy on 30-bit
	// channels and the mma and pair mappings
	ladders := len(kernels.Schedules) - 2
	c16 := ladders*len(kernels.Exts)*2 + 2 + 2
	c30 := ladders*2 + 3 + 2 + 2 + 2
	if want := len(kernels.Curves) * (c16 + c30); len(all) != want || want != 75 {
		t.Fatalf("%d entry points, want %d (75)", len(all), want)
	}
	seen := map[string]bool{}
	for _, k := range all {
		if seen[k.Name()] {
			t.Fatalf("entry point %s declared twice", k.Name())
		}
		seen[k.Name()] = true
		got, err := kernels.ByName(k.Name())
		if err != nil || got != k {
			t.Fatalf("ByName(%s) = %+v, %v", k.Name(), got, err)
		}
		found, err := kernels.Find(k.Curve, k.Schedule, k.Ext, k.Mapping, k.Channels)
		if err != nil || found != k {
			t.Fatalf("Find(%+v) = %+v, %v", k, found, err)
		}
	}
	k, err := kernels.Find("P-224", "coz", "shenoy", "warp", "c16")
	if err != nil || k.Name() != "ecm_ladder_p224_coz_shenoy_warp_c16" || k.Lanes(15) != 16 {
		t.Fatalf("P-224 coz shenoy warp: %s, %d lanes, %v", k.Name(), k.Lanes(15), err)
	}
	// the warp mapping: ⌊32/(n+1)⌋ items per warp, then n+1 threads per item
	for _, c := range []struct{ n, perWarp, items, threads, most int }{
		{15, 2, 8, 128, 32}, {15, 2, 1, 16, 32}, {17, 1, 4, 128, 16}, {8, 3, 12, 128, 48}, {8, 3, 8, 82, 48}, {9, 3, 2, 20, 48},
	} {
		if got := k.ItemsPerWarp(c.n); got != c.perWarp {
			t.Errorf("warp mapping, n = %d: %d items per warp, want %d", c.n, got, c.perWarp)
		}
		if got := k.Threads(c.n, c.items); got != c.threads {
			t.Errorf("warp mapping, n = %d: %d items take %d threads, want %d", c.n, c.items, got, c.threads)
		}
		if got := k.MaxItemsPerBlock(c.n); got != c.most {
			t.Errorf("warp mapping, n = %d: at most %d items per block, want %d", c.n, got, c.most)
		}
	}
	k.Mapping = "block"
	if k.Lanes(17) != 18 || k.MaxItemsPerBlock(17) != 28 || k.MaxItemsPerBlock(15) != 32 || k.Threads(17, 28) != 504 || k.ItemsPerWarp(17) != 0 {
		t.Errorf("block mapping: %d lanes, %d and %d items per block", k.Lanes(17), k.MaxItemsPerBlock(17), k.MaxItemsPerBlock(15))
	}
	good := [5]string{"P-224", "coz", "shenoy", "warp", "c16"}
	for i, bad := range []string{"P-384", "fast", "crt", "grid", "c24"} {
		args := good
		args[i] = bad
		if _, err := kernels.Find(args[0], args[1], args[2], args[3], args[4]); err == nil || !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("Find(%v): %v, want an error naming %q", args, err, bad)
		}
	}
	for _, bad := range [][3]string{{"coz", "kawamura", "c16"}, {"paper", "shenoy", "c16"}, {"paper", "shenoy", "c30"}} {
		for _, m := range []string{"tile", "spread"} {
			if m == "tile" && bad[2] == "c30" {
				continue
			}
			if _, err := kernels.Find("P-224", bad[0], bad[1], m, bad[2]); err == nil || !strings.Contains(err.Error(), m) {
				t.Errorf("Find accepts %s with %s on the %s mapping (%s): %v", bad[0], bad[1], m, bad[2], err)
			}
		}
	}
	for _, bad := range [][2]string{{"kawamura", "warp"}, {"shenoy", "tile"}, {"kawamura", "mma"}} {
		if _, err := kernels.Find("P-256", "coz", bad[0], bad[1], "c30"); err == nil || !strings.Contains(err.Error(), "30-bit") {
			t.Errorf("Find accepts %s on the %s mapping with 30-bit channels: %v", bad[0], bad[1], err)
		}
	}
	if kernels.ChannelBits("c30") != 30 || kernels.ChannelBits("c16") != 16 || kernels.ChannelTag(30) != "c30" {
		t.Error("channel tags and widths disagree")
	}
	k.Mapping = "tile"
	if k.Lanes(15) != 16 || k.MaxItemsPerBlock(17) != kernels.TileItems || k.FixedItemsPerBlock() != kernels.TileItems {
		t.Errorf("tile mapping: %d lanes, %d items per block", k.Lanes(15), k.MaxItemsPerBlock(17))
	}
	// the spread mapping: a warp per item, whatever n
	k.Mapping = "spread"
	if k.Threads(15, 3) != 96 || k.Threads(8, 1) != 32 || k.MaxItemsPerBlock(8) != kernels.MaxThreads/32 || k.ItemsPerWarp(8) != 0 || k.ThreadShape() != kernels.ShapeSpread {
		t.Errorf("spread mapping: %d threads for 3 items, at most %d items per block", k.Threads(15, 3), k.MaxItemsPerBlock(8))
	}
	// the mma mapping: 8 items of 4 lanes to a warp, whatever n, in blocks
	// of whole warps; co-Z with Shenoy on 30-bit channels only
	k.Mapping = "mma"
	for _, c := range []struct{ n, items, threads int }{{9, 1, 32}, {9, 8, 32}, {9, 9, 64}, {8, 32, 128}, {17, 128, kernels.MaxThreads}} {
		if got := k.Threads(c.n, c.items); got != c.threads {
			t.Errorf("mma mapping, n = %d: %d items take %d threads, want %d", c.n, c.items, got, c.threads)
		}
	}
	if k.Lanes(9) != 4 || k.Lanes(8) != 4 || k.ItemsPerWarp(9) != 8 || k.ItemsPerBlock(9, 96) != 24 || k.MaxItemsPerBlock(9) != kernels.MaxThreads/32*8 ||
		k.FixedItemsPerBlock() != 0 || k.ThreadShape() != kernels.ShapeWarps || k.MaxRegisters() != 152 {
		t.Errorf("mma mapping: %d lanes, %d items per warp, %d items in 96 threads, at most %d items per block, shape %d, %d registers",
			k.Lanes(9), k.ItemsPerWarp(9), k.ItemsPerBlock(9, 96), k.MaxItemsPerBlock(9), k.ThreadShape(), k.MaxRegisters())
	}
	for _, c := range kernels.Curves {
		if _, err := kernels.Find(c.Curve, "coz", "shenoy", "mma", "c30"); err != nil {
			t.Errorf("%s: no mma entry point: %v", c.Curve, err)
		}
	}
	if k, err := kernels.Find("P-256", "coz", "shenoy", "mma", "c30"); err != nil || k.Name() != "ecm_ladder_p256_coz_shenoy_mma_c30" {
		t.Errorf("P-256 coz shenoy mma c30: %s, %v", k.Name(), err)
	}
	for _, bad := range [][3]string{{"coz", "shenoy", "c16"}, {"paper", "shenoy", "c30"}, {"comb", "shenoy", "c16"}, {"coz", "kawamura", "c16"}} {
		if kernels.Supports(bad[0], bad[1], "mma", bad[2]) {
			t.Errorf("Supports(%s, %s, mma, %s)", bad[0], bad[1], bad[2])
		}
		_, err := kernels.Find("P-224", bad[0], bad[1], "mma", bad[2])
		if err == nil || !strings.Contains(err.Error(), "mma mapping runs only the coz, comb and combvt schedules with the shenoy extension on 30-bit channels") ||
			!strings.Contains(err.Error(), fmt.Sprintf("not %s with %s on %s-bit channels (%s)", bad[0], bad[1], strings.TrimPrefix(bad[2], "c"), bad[2])) {
			t.Errorf("Find accepts %s with %s on the mma mapping (%s), or names neither: %v", bad[0], bad[1], bad[2], err)
		}
	}
	if !kernels.Supports("coz", "shenoy", "mma", "c30") || !kernels.Supports("comb", "shenoy", "mma", "c30") || !kernels.Supports("combvt", "shenoy", "mma", "c30") {
		t.Error("no mma entry points for co-Z or the combs with Shenoy on 30-bit channels")
	}
	for _, bad := range [][3]string{{"warp", "shenoy", "c30"}, {"block", "shenoy", "c30"}, {"mma", "shenoy", "c16"}} {
		_, err := kernels.Find("P-256", "combvt", bad[1], bad[0], bad[2])
		where := "the combvt schedule runs only on the mma or pair mapping" // a mapping without it
		if bad[0] == "mma" {
			where = "on 30-bit channels (c30), not combvt with shenoy on 16-bit channels (c16)"
		}
		if err == nil || !strings.Contains(err.Error(), where) {
			t.Errorf("Find accepts combvt on the %s mapping with %s on %s, or does not say where it runs: %v", bad[0], bad[1], bad[2], err)
		}
	}
	// the pair mapping: 16 items to a warp, two to each group of 4 lanes,
	// in blocks of whole warps; co-Z and the combs with Shenoy on 30-bit channels only
	k.Mapping = "pair"
	for _, c := range []struct{ n, items, threads int }{{9, 1, 32}, {9, 16, 32}, {9, 17, 64}, {8, 64, 128}, {9, 256, kernels.MaxThreads}} {
		if got := k.Threads(c.n, c.items); got != c.threads {
			t.Errorf("pair mapping, n = %d: %d items take %d threads, want %d", c.n, c.items, got, c.threads)
		}
	}
	if k.Lanes(9) != 2 || k.ItemsPerWarp(9) != 16 || k.ItemsPerBlock(9, 96) != 48 || k.MaxItemsPerBlock(9) != kernels.MaxThreads/32*16 ||
		k.FixedItemsPerBlock() != 0 || k.ThreadShape() != kernels.ShapeWarps || k.MaxRegisters() != 255 {
		t.Errorf("pair mapping: %d lanes, %d items per warp, %d items in 96 threads, at most %d items per block, shape %d, %d registers",
			k.Lanes(9), k.ItemsPerWarp(9), k.ItemsPerBlock(9, 96), k.MaxItemsPerBlock(9), k.ThreadShape(), k.MaxRegisters())
	}
	if err := k.CheckBlock(9, 48); err == nil || !strings.Contains(err.Error(), "pair mapping takes whole warps") {
		t.Errorf("pair mapping: a block of 48 threads: %v", err)
	}
	for _, bad := range [][3]string{{"comb", "shenoy", "c16"}, {"combvt", "shenoy", "c16"}, {"paper", "shenoy", "c30"}, {"coz", "shenoy", "c16"}} {
		if kernels.Supports(bad[0], bad[1], "pair", bad[2]) {
			t.Errorf("Supports(%s, %s, pair, %s)", bad[0], bad[1], bad[2])
		}
		if bad[0] == "combvt" {
			continue // its own message: where the variable-time comb runs
		}
		_, err := kernels.Find("P-256", bad[0], bad[1], "pair", bad[2])
		if err == nil || !strings.Contains(err.Error(), "pair mapping runs only the coz, comb and combvt schedules with the shenoy extension on 30-bit channels") {
			t.Errorf("Find accepts %s with %s on the pair mapping (%s), or does not say where it runs: %v", bad[0], bad[1], bad[2], err)
		}
	}
	for _, c := range kernels.Curves {
		for _, schedule := range []string{"coz", "comb", "combvt"} {
			if _, err := kernels.Find(c.Curve, schedule, "shenoy", "pair", "c30"); err != nil {
				t.Errorf("%s: no pair entry point for %s: %v", c.Curve, schedule, err)
			}
		}
	}
	if _, err := kernels.ByName("ecm_ladder_p224_coz_shenoy_warp"); err == nil {
		t.Error("ByName accepts an undeclared entry point")
	}
}

// TestWideChannelsFoldOnce: the kernel's Channel<30>::reduce applies one
// fold after its first step (rns.cuh), which rns.Params must prove enough for
// every curve's wide channels.
func TestWideChannelsFoldOnce(t *testing.T) {
	for _, ct := range kernels.Curves {
		c, err := curves.ByName(ct.Curve)
		if err != nil {
			t.Fatal(err)
		}
		par, err := rns.NewParamsBits(c.P(), rns.WideChannelBits)
		if err != nil {
			t.Fatal(err)
		}
		if par.B.MaxFolds() != 1 || par.BT.MaxFolds() != 1 {
			t.Errorf("%s: wide channels need %d and %d folds, the kernel applies 1", c.Name(), par.B.MaxFolds(), par.BT.MaxFolds())
		}
	}
}

// TestItemsPerBlockInvertsThreads holds ItemsPerBlock (ecm_items_per_block)
// to Threads for every entry point, item count and channel count, and
// CheckBlock to the kernel's traps.
func TestItemsPerBlockInvertsThreads(t *testing.T) {
	for _, k := range kernels.Entries() {
		for _, n := range []int{8, 9, 15, 17} {
			for items := 1; items <= k.MaxItemsPerBlock(n); items++ {
				threads := k.Threads(n, items)
				want := items
				if ipw := k.ItemsPerWarp(n); k.ThreadShape() == kernels.ShapeWarps { // whole warps of 8 or 16 items
					want = (items + ipw - 1) / ipw * ipw
				}
				if got := k.ItemsPerBlock(n, threads); got != want {
					t.Fatalf("%s, n = %d: %d threads hold %d items, want %d, Threads(%d) = %d", k.Name(), n, threads, got, want, items, threads)
				}
				if err := k.CheckBlock(n, threads); (err == nil) != (k.Mapping != "tile" || items == kernels.TileItems) {
					t.Fatalf("%s, n = %d, %d items: CheckBlock = %v", k.Name(), n, items, err)
				}
			}
			for _, threads := range []int{0, kernels.MaxThreads + 1, 1024} {
				if k.CheckBlock(n, threads) == nil {
					t.Errorf("%s: a block of %d threads passes CheckBlock", k.Name(), threads)
				}
			}
			for _, threads := range []int{4, 16, 48, 100} {
				if err := k.CheckBlock(n, threads); (k.Mapping == "spread" || k.Mapping == "mma") &&
					(err == nil || !strings.Contains(err.Error(), "the "+k.Mapping+" mapping takes whole warps")) {
					t.Errorf("%s: a block of %d threads passes CheckBlock, or says not why: %v", k.Name(), threads, err)
				}
			}
			if k.Mapping == "block" && k.CheckBlock(n, n) == nil {
				t.Errorf("%s: a block of %d threads, no whole item, passes CheckBlock", k.Name(), n)
			}
		}
	}
}

// TestConstsMatchKernelConstants holds the offsets of the constants that
// schedule_gen.cuh gives the kernel (ECM_CONSTS and ECM_COMB_TABLES, from
// ladder.ConstLayout) to what ladder.Setup.KernelConstants uploads, for
// every curve, schedule and channel width of the entry points: the basext
// table, the curve's b, every addition constant and the comb's table each
// where the header says, and nothing after them.
func TestConstsMatchKernelConstants(t *testing.T) {
	src, err := os.ReadFile("schedule_gen.cuh")
	if err != nil {
		t.Fatal(err)
	}
	atoi := func(m []string) []int {
		v := make([]int, len(m)-1)
		for i, s := range m[1:] {
			v[i], _ = strconv.Atoi(s)
		}
		return v
	}
	consts := map[int][]int{} // n: element words, the curve's b, the first addition constant
	for _, m := range regexp.MustCompile(`\bCONSTS\((\d+), (\d+), (\d+), (\d+)\)`).FindAllStringSubmatch(string(src), -1) {
		v := atoi(m)
		consts[v[0]] = v[1:]
	}
	combs := map[[2]int]int{} // n and addition constants: the comb's table
	for _, m := range regexp.MustCompile(`\bCOMB\((\d+), (\d+), (\d+)\)`).FindAllStringSubmatch(string(src), -1) {
		v := atoi(m)
		combs[[2]int{v[0], v[1]}] = v[2]
	}
	element := func(w []uint32, e *rns.Element) bool {
		return slices.Equal(w, slices.Concat(e.B, e.BT, []uint32{e.E}))
	}
	seen := map[string]bool{}
	for _, k := range kernels.Entries() {
		key := k.Curve + " " + k.Schedule + " " + k.Channels
		if seen[key] {
			continue
		}
		seen[key] = true
		c, err := curves.ByName(k.Curve)
		if err != nil {
			t.Fatal(err)
		}
		kind, err := ladder.ParseAnyKind(k.Schedule)
		if err != nil {
			t.Fatal(err)
		}
		su, err := ladder.NewSetupBits(c, kind, kernels.ChannelBits(k.Channels))
		if err != nil {
			t.Fatal(err)
		}
		n, w := su.Params.N, su.KernelConstants()
		cs, ok := consts[n]
		if !ok {
			t.Fatalf("%s: schedule_gen.cuh has no CONSTS for n = %d", key, n)
		}
		el, kb, add := cs[0], cs[1], cs[2]
		if el != ladder.ElementRows(n) || !slices.Equal(w[:kb], su.Tables.Words()) || !element(w[kb:kb+el], &su.KB) {
			t.Errorf("%s: the basext table and the curve's b are not at [0, %d) and [%d, %d)", key, kb, kb, kb+el)
		}
		for i := range su.AddConsts {
			if at := add + i*el; !element(w[at:at+el], &su.AddConsts[i]) {
				t.Errorf("%s: addition constant %d is not at %d", key, i, at)
			}
		}
		end := add + len(su.AddConsts)*el
		if table := su.CombTableWords(); table != nil {
			at, ok := combs[[2]int{n, len(su.AddConsts)}]
			if !ok {
				t.Fatalf("%s: schedule_gen.cuh has no COMB for n = %d and %d addition constants", key, n, len(su.AddConsts))
			}
			if at < end || !slices.Equal(w[at:], table) || slices.ContainsFunc(w[end:at], func(x uint32) bool { return x != 0 }) {
				t.Errorf("%s: the comb's table is not at %d", key, at)
			}
			end = at + len(table)
		}
		if len(w) != end {
			t.Errorf("%s: %d words of constants, the header accounts for %d", key, len(w), end)
		}
	}
}

// TestFinishGridTakesEveryItem: a finish launch's threads, at the items per
// thread asked (the library's for 0, at most kernels.FinishItemsMax), take every
// item, with no block more than they need.
func TestFinishGridTakesEveryItem(t *testing.T) {
	for _, per := range []int{0, 1, 7, kernels.FinishItemsPerThread, 32, kernels.FinishItemsMax, kernels.FinishItemsMax + 1} {
		each := min(cmp.Or(per, kernels.FinishItemsPerThread), kernels.FinishItemsMax)
		for _, count := range []int{1, 127, 128, 129, 2047, 2048, 2049, 118272, 1 << 20} {
			blocks := kernels.FinishGrid(count, per)
			if blocks*kernels.FinishThreads*each < count || (blocks-1)*kernels.FinishThreads*each >= count {
				t.Errorf("%d items at %d a thread: %d blocks of %d threads", count, per, blocks, kernels.FinishThreads)
			}
		}
	}
}
