package engine

import (
	"fmt"
	"strings"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/ladder"
)

// Backend names where the arithmetic runs. Its zero value is Auto.
type Backend uint8

const (
	Auto   Backend = iota // the gpu backend when a GPU can be used, otherwise the cpu backend
	GPU                   // the CUDA kernel, one thread per RNS channel
	RNSCPU                // the CPU twin of the kernel: the same RNS arithmetic, channel for channel
	CPU                   // constant-time k·P and k·G in four-limb arithmetic (internal/ctec) on every core
	numBackends
)

var backendNames = [numBackends]string{"auto", "gpu", "rns-cpu", "cpu"}

// String returns the backend's name: auto, gpu, rns-cpu or cpu.
func (b Backend) String() string { return enumName(backendNames[:], int(b), "Backend") }

// Schedule is the ladder the rns-cpu and gpu backends run. Its zero value
// is CoZ.
type Schedule uint8

const (
	CoZ   Schedule = iota // Hamburg's co-Z ladder: 11 RNS reductions per bit (the default)
	Paper                 // the x-only ladder of Antão, Bajard and Sousa: 18 per bit
	numSchedules
)

var scheduleNames = [numSchedules]string{"coz", "paper"}

// String returns the schedule's name: coz or paper.
func (s Schedule) String() string { return enumName(scheduleNames[:], int(s), "Schedule") }

// ParseSchedule returns the schedule of that name, in any case: coz, paper,
// or default (CoZ).
func ParseSchedule(s string) (Schedule, error) {
	if strings.EqualFold(s, "default") {
		return CoZ, nil
	}
	i, err := parseEnum(scheduleNames[:], s, "schedule")
	return Schedule(i), err
}

// kind is the ladder package's name for s.
func (s Schedule) kind() ladder.Kind {
	if s == Paper {
		return ladder.Paper
	}
	return ladder.CoZ
}

// Extension is the base extension of the RNS Montgomery multiplication.
// Its zero value is Shenoy.
type Extension uint8

const (
	Shenoy   Extension = iota // Shenoy's, exact by a redundant modulus (the default)
	Kawamura                  // Kawamura's, with a floating-point correction (16-bit channels only)
	numExtensions
)

var extensionNames = [numExtensions]string{"shenoy", "kawamura"}

// String returns the extension's name: shenoy or kawamura.
func (x Extension) String() string { return enumName(extensionNames[:], int(x), "Extension") }

// ParseExtension returns the base extension of that name, in any case:
// shenoy or kawamura.
func ParseExtension(s string) (Extension, error) {
	i, err := parseEnum(extensionNames[:], s, "base extension")
	return Extension(i), err
}

// variant is the basext package's name for x.
func (x Extension) variant() basext.Variant {
	if x == Kawamura {
		return basext.Kawamura
	}
	return basext.Shenoy
}

// enumName is names[i], or type(i) for a value without a name.
func enumName(names []string, i int, typ string) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("%s(%d)", typ, i)
}

// parseEnum returns the index of s among names, compared in any case.
func parseEnum(names []string, s, what string) (int, error) {
	for i, n := range names {
		if strings.EqualFold(s, n) {
			return i, nil
		}
	}
	want := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	return 0, fmt.Errorf("ecmul: unknown %s %q (want %s)", what, s, want)
}
