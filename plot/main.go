// Command plot draws segdist's throughput curves into one PNG: ns per pair
// against batch size, both on log scales, one panel per precision
// (BatchClosest in float32, BatchClosest64 in float64) with a line per
// path, the C and archsimd peers of bench/peers when their rows are
// there, the memory floor (StreamOnly) and marks where a batch outgrows
// each data cache. It reads the rows `go run ./bench -sweep -json` prints
// (its first line describes the machine: CPU, date, cache sizes) and
// bench/peers' TestPeersSweep appends:
//
//	go run ./bench -sweep -json > sweep.json
//	cd plot && go run . -in ../sweep.json -out ../throughput.png -commit "$(git describe --always --dirty)"
//
// (`make plot` runs both, and the peers when gcc is there.) It is a module
// of its own so that users of segdist never see gonum in their module
// graph.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// row is the part of a bench -json row the picture needs.
type row struct {
	ISA       string  `json:"isa"`
	Kernel    string  `json:"kernel"`
	Pairs     int     `json:"pairs"`
	NsPerPair float64 `json:"ns_per_pair"`
	Precision string  `json:"precision"`
}

// machine is the sweep's first line (kernel "machine"): the CPU that ran
// it, the day, one core's data caches in bytes and the bytes of one pair
// (inputs and results) per precision.
type machine struct {
	CPU       string         `json:"cpu"`
	Family    int            `json:"family"`
	Model     int            `json:"model"`
	Date      string         `json:"date"`
	L1D       int            `json:"l1d"`
	L2        int            `json:"l2"`
	L3        int            `json:"l3"`
	PairBytes map[string]int `json:"pair_bytes"`
}

func main() {
	in := flag.String("in", "-", "the bench -sweep -json rows (- for stdin)")
	out := flag.String("out", "throughput.png", "the PNG to write")
	commit := flag.String("commit", "", "the commit the sweep ran on, named in the title")
	flag.Parse()
	r := io.Reader(os.Stdin)
	if *in != "-" {
		f, err := os.Open(*in)
		check(err)
		defer f.Close()
		r = f
	}
	rows, m, err := readRows(r)
	check(err)
	f, err := os.Create(*out)
	check(err)
	check(drawFigure(f, rows, m, strings.TrimSpace(*commit)))
	check(f.Close())
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "plot:", err)
		os.Exit(1)
	}
}

// readRows reads JSON rows, one per line: the machine line, and the
// closest and stream rows with a time. Other rows are skipped. Without a
// machine line m is zero, and the figure has no cache marks.
func readRows(r io.Reader) (rows []row, m machine, err error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var x row
		if err := json.Unmarshal([]byte(line), &x); err != nil {
			return nil, m, fmt.Errorf("row %q: %v", line, err)
		}
		switch {
		case x.Kernel == "machine":
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				return nil, m, fmt.Errorf("machine line %q: %v", line, err)
			}
		case (x.Kernel == "closest" || x.Kernel == "stream") && x.Pairs > 0 && x.NsPerPair > 0:
			if x.Precision == "" {
				x.Precision = "float32"
			}
			rows = append(rows, x)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, m, err
	}
	if len(rows) == 0 {
		return nil, m, fmt.Errorf("no closest or stream rows: run go run ./bench -sweep -json")
	}
	return rows, m, nil
}
