package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/segdist/segdist/gen/neon"
)

var (
	neonOut   = flag.String("neon-out", "", "write the arm64 NEON assembly to this file")
	neonStubs = flag.String("neon-stubs", "", "write the Go declarations of the NEON kernels to this file")
	neonIL    = flag.Int("neon-interleave", 0, "override: groups per iteration of the NEON closest loop")
	neonSkew  = flag.Float64("neon-skew", -1, "override: skew of the NEON closest loop's groups")
)

// generateNEON writes the arm64 files when their flags are set.
func generateNEON() {
	if *neonOut == "" && *neonStubs == "" {
		return
	}
	if *neonIL > 0 {
		neon.Interleave["Closest"] = *neonIL
	}
	if *neonSkew >= 0 {
		neon.Skew["Closest"] = *neonSkew
	}
	asm, stubs, _ := neon.Generate()
	for path, text := range map[string]string{*neonOut: asm, *neonStubs: stubs} {
		if path == "" {
			continue
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
