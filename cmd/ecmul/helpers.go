package main

import (
	"fmt"
	"strings"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ladder"
)

// publicCurve is c as the library names it.
func publicCurve(c *curves.Curve) ecmul.Curve {
	pc, err := ecmul.ParseCurve(c.Name())
	if err != nil {
		panic(err) // every curve of package curves is one of the library's
	}
	return pc
}

// parseBackend returns the backend of that name, in any case: auto, gpu,
// rns-cpu or cpu.
func parseBackend(s string) (ecmul.Backend, error) {
	names := make([]string, 0, 4)
	for b := ecmul.Auto; b <= ecmul.CPU; b++ {
		if strings.EqualFold(s, b.String()) {
			return b, nil
		}
		names = append(names, b.String())
	}
	return 0, fmt.Errorf("ecmul: unknown backend %q (want %s or %s)", s, strings.Join(names[:3], ", "), names[3])
}

// scheduleOf is the library's name of the ladder schedule k.
func scheduleOf(k ladder.Kind) diag.Schedule {
	s, err := diag.ParseSchedule(k.String())
	if err != nil {
		panic(err)
	}
	return s
}

// extensionOf is the library's name of the base extension v.
func extensionOf(v basext.Variant) diag.Extension {
	x, err := diag.ParseExtension(v.String())
	if err != nil {
		panic(err)
	}
	return x
}
