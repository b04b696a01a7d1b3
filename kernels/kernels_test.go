package kernels_test

import (
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rnsec/ecmul/basext"
	"github.com/rnsec/ecmul/kernels"
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

func TestFatbinHasEntryPoints(t *testing.T) {
	if len(kernels.Fatbin) == 0 {
		t.Fatal("no fatbin embedded")
	}
	for _, curve := range []string{"p224", "p256", "secp256k1"} {
		for _, ext := range []string{"shenoy", "kawamura"} {
			for _, mapping := range []string{"warp", "block"} {
				name := "ecm_ladder_" + curve + "_" + ext + "_" + mapping
				if !strings.Contains(string(kernels.Fatbin), name+"\x00") {
					t.Errorf("fatbin has no entry point %s", name)
				}
			}
		}
	}
}

// TestLayoutMatchesBasext holds the kernel's view of the constant table
// (ECM_BASEXT_LAYOUT in rns.cuh) to basext.LayoutFor: same fields, same
// order, same sizes, hence the same offsets.
func TestLayoutMatchesBasext(t *testing.T) {
	src, err := os.ReadFile("rns.cuh")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)#define ECM_BASEXT_LAYOUT\(F\)(.*?)\n\n`).FindSubmatch(src)
	if block == nil {
		t.Fatal("rns.cuh: no ECM_BASEXT_LAYOUT")
	}
	fields := regexp.MustCompile(`F\((\w+), ([^)]*)\)`).FindAllSubmatch(block[1], -1)
	for _, n := range []int{15, 17} {
		want := reflect.ValueOf(basext.LayoutFor(n))
		off := 0
		for _, f := range fields {
			name, size := string(f[1]), 0
			switch strings.ReplaceAll(string(f[2]), " ", "") {
			case "N":
				size = n
			case "N*N":
				size = n * n
			case "1":
				size = 1
			default:
				t.Fatalf("rns.cuh: field %s has size %q", name, f[2])
			}
			w := want.FieldByName(name)
			if !w.IsValid() {
				t.Fatalf("rns.cuh: field %s is not in basext.Layout", name)
			}
			if int(w.Int()) != off {
				t.Errorf("n = %d: %s at %d in the kernel, %d in basext", n, name, off, w.Int())
			}
			off += size
		}
		if want.NumField() != len(fields)+1 { // basext.Layout also has Size
			t.Errorf("basext.Layout has %d fields, the kernel's table %d", want.NumField()-1, len(fields))
		}
		if size := int(want.FieldByName("Size").Int()); size != off {
			t.Errorf("n = %d: table of %d words in the kernel, %d in basext", n, off, size)
		}
	}
}

func TestMaxThreadsMatchesKernel(t *testing.T) {
	src, err := os.ReadFile("ecmul.cu")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`constexpr int kMaxThreads = (\d+);`).FindSubmatch(src)
	if m == nil {
		t.Fatal("ecmul.cu: no kMaxThreads")
	}
	if got, want := string(m[1]), strconv.Itoa(kernels.MaxThreads); got != want {
		t.Fatalf("ecmul.cu has kMaxThreads = %s, kernels.MaxThreads is %s", got, want)
	}
}
