package main

import (
	"bytes"
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

// row is one line of the result table, and one JSON object with -json.
// The meaning of contacts and of the reference row depends on the kernel:
//
//   - "closest": kernel.BatchClosest on the broadphase pairs laid out in a
//     soa.Pairs; contacts = pairs with sqrt(Dist2) <= r1 + r2; reference =
//     fallback.ReferenceF32 (float64 Eberly).
//   - "contacts": Kernel.CompactContacts on the scene's capsule records and
//     the broadphase pairs as a soa.IndexPairs, with the -margin; contacts
//     = the count it returns (pairs within r1 + r2 + margin); worst error =
//     the depth against the reference; mismatches = rows (of 13 streams)
//     differing from the go path, plus the difference of the counts;
//     reference = fallback.ReferenceContact on the same pairs.
//   - "point": Kernel.BatchClosestPoint, end A of capsule I (a sphere's
//     centre) against the axis of capsule J, per broadphase pair; contacts
//     = pairs with sqrt(Dist2) <= r_I + r_J; reference =
//     fallback.ReferenceClosestPoint.
type row struct {
	ISA         string  `json:"isa"`           // path name, or "reference"
	Kernel      string  `json:"kernel"`        // "closest", "contacts" or "point"
	Pairs       int     `json:"pairs"`         // candidate pairs timed and verified
	NsPerPair   float64 `json:"ns_per_pair"`   // median ns per pair
	Speedup     float64 `json:"speedup"`       // the kernel's reference ns/pair over this row's
	WorstErrEps float64 `json:"worst_err_eps"` // worst lane error, eps x scale of the row's precision (eps32 or eps64)
	Contacts    int     `json:"contacts"`      // touching pairs (see above)
	Mismatches  int     `json:"mismatches"`    // lanes (rows) whose bits differ from "go"
	Precision   string  `json:"precision"`     // "float32" or "float64"
}

// writeJSON writes each row as one JSON object on its own line. JSON has
// no infinity or NaN: a worst error that is not finite (a NaN lane, or an
// error at scale 0) is written as the largest float64, which no threshold
// accepts.
func writeJSON(w io.Writer, rows []row) error {
	enc := json.NewEncoder(w)
	for _, r := range rows {
		if r.Precision == "" {
			r.Precision = "float32"
		}
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

// writeTable writes the rows as an aligned text table, a blank line
// between kernels.
func writeTable(w io.Writer, rows []row) error {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kernel\tprecision\tpath\tpairs\tns/pair\tspeedup\tworst err (eps x scale)\tcontacts\tmismatches\t")
	for i, r := range rows {
		if r.Precision == "" {
			r.Precision = "float32"
		}
		if i > 0 && (r.Kernel != rows[i-1].Kernel || r.Precision != rows[i-1].Precision && rows[i-1].Precision != "") {
			fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t\t")
		}
		mis := fmt.Sprint(r.Mismatches)
		if r.ISA == refISA {
			mis = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.3f\t%.1fx\t%.2f\t%d\t%s\t\n",
			r.Kernel, r.Precision, r.ISA, r.Pairs, r.NsPerPair, r.Speedup, r.WorstErrEps, r.Contacts, mis)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The separator lines are all blanks: trim them.
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if strings.TrimSpace(line) == "" && line != "" {
			line = "\n"
		}
		if _, err := io.WriteString(w, line); err != nil {
			return err
		}
	}
	return nil
}

// endToEnd is one path's end-to-end comparison for the contact kernel, in
// ns per indexed pair: the contact kernels (which load the capsule records
// by index themselves) against copying the
// pairs' axes into a soa.Pairs and running BatchClosest on them.
type endToEnd struct {
	ISA         string
	Compact     float64 // CompactContacts (the "contacts" row)
	Batch       float64 // BatchContacts, one row per pair
	Copy        float64 // gatherPairs alone: the copy into a soa.Pairs
	CopyClosest float64 // gatherPairs then BatchClosest
	Indexed     float64 // BatchClosestIndexed: the same results without the copy
	Closest     float64 // BatchClosest on the pre-laid-out pairs (the "closest" row)
}

// writeEndToEnd writes the end-to-end comparison as a table.
func writeEndToEnd(w io.Writer, rows []endToEnd) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "path\tCompactContacts\tBatchContacts\tcopy+BatchClosest\t(copy\tBatchClosest laid out)\tBatchClosestIndexed\tCompact vs copy+closest\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t\n",
			r.ISA, r.Compact, r.Batch, r.CopyClosest, r.Copy, r.Closest, r.Indexed, ratioWords(r.CopyClosest, r.Compact))
	}
	return tw.Flush()
}

// ratioWords says how many times faster a (the time of one thing) b is: "1.4x faster" or "1.2x slower".
func ratioWords(a, b float64) string {
	switch {
	case !(a > 0 && b > 0):
		return "-"
	case b <= a:
		return fmt.Sprintf("%.2fx faster", a/b)
	}
	return fmt.Sprintf("%.2fx slower", b/a)
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

// writeHeader writes the CPU and kernel dispatch lines.
func writeHeader(w io.Writer) {
	fmt.Fprintf(w, "cpu:       %s\n", cpuLine())
	fmt.Fprintf(w, "runtime:   %s %s/%s, GOMAXPROCS %d\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "kernel:    ISA() = %s, Available() = %s\n", kernel.ISA(), strings.Join(kernel.Available(), ", "))
}
