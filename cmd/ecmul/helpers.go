package main

import (
	"github.com/rnsec/ecmul"
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

// scheduleOf is the library's name of the ladder schedule k.
func scheduleOf(k ladder.Kind) ecmul.Schedule {
	s, err := ecmul.ParseSchedule(k.String())
	if err != nil {
		panic(err)
	}
	return s
}

// extensionOf is the library's name of the base extension v.
func extensionOf(v basext.Variant) ecmul.Extension {
	x, err := ecmul.ParseExtension(v.String())
	if err != nil {
		panic(err)
	}
	return x
}
