package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/klauspost/cpuid/v2"

	"github.com/segdist/segdist/kernel"
)

// refISA is the isa of the float64 reference's row.
const refISA = "reference"

// Row is one line of the result table, and one JSON object with -json.
type Row struct {
	ISA         string  `json:"isa"`           // path name, or "reference"
	Kernel      string  `json:"kernel"`        // always "closest"
	Pairs       int     `json:"pairs"`         // candidate pairs timed and verified
	NsPerPair   float64 `json:"ns_per_pair"`   // median ns per pair
	Speedup     float64 `json:"speedup"`       // reference ns/pair over this row's
	WorstErrEps float64 `json:"worst_err_eps"` // worst lane error, eps32 x scale
	Contacts    int     `json:"contacts"`      // pairs with sqrt(Dist2) <= r1+r2
	Mismatches  int     `json:"mismatches"`    // lanes whose bits differ from "go"
}

// WriteJSON writes each row as one JSON object on its own line. JSON has
// no infinity or NaN: a worst error that is not finite (a NaN lane, or an
// error at scale 0) is written as the largest float64, which no threshold
// accepts.
func WriteJSON(w io.Writer, rows []Row) error {
	enc := json.NewEncoder(w)
	for _, r := range rows {
		if math.IsNaN(r.WorstErrEps) || math.IsInf(r.WorstErrEps, 0) {
			r.WorstErrEps = math.MaxFloat64
		}
		if math.IsNaN(r.NsPerPair) || math.IsInf(r.NsPerPair, 0) {
			r.NsPerPair = 0
		}
		if math.IsNaN(r.Speedup) || math.IsInf(r.Speedup, 0) {
			r.Speedup = 0
		}
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// WriteTable writes the rows as an aligned text table.
func WriteTable(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "path\tpairs\tns/pair\tspeedup\tworst err (eps x scale)\tcontacts\tmismatches\t")
	for _, r := range rows {
		mis := fmt.Sprint(r.Mismatches)
		if r.ISA == refISA {
			mis = "-"
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.1fx\t%.2f\t%d\t%s\t\n",
			r.ISA, r.Pairs, r.NsPerPair, r.Speedup, r.WorstErrEps, r.Contacts, mis)
	}
	return tw.Flush()
}

// cpuLine describes the CPU from cpuid: brand, vendor, family, model and
// cache sizes.
func cpuLine() string {
	c := cpuid.CPU
	brand := strings.TrimSpace(c.BrandName)
	if brand == "" {
		brand = "unknown CPU"
	}
	return fmt.Sprintf("%s (%s, family %d model %d), L1D %s, L2 %s, L3 %s",
		brand, c.VendorString, c.Family, c.Model,
		cacheSize(c.Cache.L1D), cacheSize(c.Cache.L2), cacheSize(c.Cache.L3))
}

// cacheSize formats a cpuid cache size in bytes (-1 or 0: unknown).
func cacheSize(b int) string {
	switch {
	case b <= 0:
		return "unknown"
	case b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}

// WriteHeader writes the CPU and kernel dispatch lines.
func WriteHeader(w io.Writer) {
	fmt.Fprintf(w, "cpu:       %s\n", cpuLine())
	fmt.Fprintf(w, "runtime:   %s %s/%s, GOMAXPROCS %d\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "kernel:    ISA() = %s, Available() = %s\n", kernel.ISA(), strings.Join(kernel.Available(), ", "))
}
