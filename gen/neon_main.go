package main

import (
	"flag"
	"os"

	"github.com/segdist/segdist/gen/neon"
)

var (
	neonOut   = flag.String("neon-out", "", "write the arm64 NEON assembly to this file")
	neonStubs = flag.String("neon-stubs", "", "write the Go declarations of the NEON kernels to this file")
)

// generateNEON writes the arm64 files, run as ss says, when their flags
// are set.
func generateNEON(ss *neon.Schedules) {
	if *neonOut == "" && *neonStubs == "" {
		return
	}
	if err := ss.Validate(); err != nil {
		fail(err)
	}
	asm, stubs, _ := neon.Generate(ss)
	for path, text := range map[string]string{*neonOut: asm, *neonStubs: stubs} {
		if path == "" {
			continue
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			fail(err)
		}
	}
}
