package main

import (
	"bytes"
	"image/png"
	"strings"
	"testing"
)

const sample = `{"kernel":"machine","cpu":"Test CPU","family":25,"model":17,"goarch":"amd64","date":"2026-01-02","l1d":49152,"l2":1048576,"l3":33554432,"pair_bytes":{"float32":60,"float64":120}}
{"isa":"avx512","kernel":"closest","pairs":16,"ns_per_pair":1.5,"precision":"float32"}
{"isa":"avx512","kernel":"closest","pairs":1048576,"ns_per_pair":1.1,"precision":"float32"}
{"isa":"avx512","kernel":"stream","pairs":16,"ns_per_pair":0.5,"precision":"float32"}
{"isa":"avx512","kernel":"stream","pairs":1048576,"ns_per_pair":1.0,"precision":"float32"}
{"isa":"avx2","kernel":"stream","pairs":16,"ns_per_pair":0.6,"precision":"float32"}
{"isa":"go","kernel":"closest","pairs":16,"ns_per_pair":20,"precision":"float32"}
{"isa":"go","kernel":"closest","pairs":1048576,"ns_per_pair":33,"precision":"float32"}
{"isa":"go","kernel":"stream","pairs":16,"ns_per_pair":2,"precision":"float32"}
{"isa":"avx512","kernel":"closest","pairs":16,"ns_per_pair":3,"precision":"float64"}
{"isa":"avx512","kernel":"closest","pairs":1048576,"ns_per_pair":4,"precision":"float64"}
{"isa":"avx512","kernel":"contacts","pairs":16,"ns_per_pair":4,"precision":"float64"}
{"isa":"c-avx512","kernel":"closest","pairs":16,"ns_per_pair":5,"precision":"float32"}
{"isa":"c-avx512","kernel":"closest","pairs":1048576,"ns_per_pair":1,"precision":"float32"}
`

// The machine line is read, other kernels are skipped, each precision
// gets a panel, the floor is the widest vector path's, and the figure
// is a PNG.
func TestFigure(t *testing.T) {
	rows, m, err := readRows(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if m.CPU != "Test CPU" || m.L2 != 1<<20 || m.PairBytes["float64"] != 120 {
		t.Errorf("machine %+v", m)
	}
	if len(rows) != 12 {
		t.Errorf("%d rows, want 12 (no contacts row)", len(rows))
	}
	pns := panels(rows)
	if len(pns) != 2 || pns[0].precision != "float32" || pns[1].precision != "float64" {
		t.Fatalf("panels %+v", pns)
	}
	var got []string
	for _, s := range pns[0].lines {
		got = append(got, legendName(s))
	}
	want := "segdist, AVX-512|segdist, pure Go|peer: C intrinsics, AVX-512|memory floor, AVX-512"
	if strings.Join(got, "|") != want {
		t.Errorf("float32 lines %q, want %q", strings.Join(got, "|"), want)
	}
	marks := cacheMarks(m, "float32")
	if len(marks) != 3 || marks[0].name != "L1d" || marks[0].pairs != 49152.0/60 {
		t.Errorf("cache marks %+v", marks)
	}
	if s := subtitle(m, "abc1234"); s != "Test CPU (family 25, model 17)  ·  measured 2026-01-02  ·  commit abc1234" {
		t.Errorf("subtitle %q", s)
	}
	var b bytes.Buffer
	if err := drawFigure(&b, rows, m, "abc1234"); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&b); err != nil {
		t.Errorf("not a PNG: %v", err)
	}
}

func TestLabels(t *testing.T) {
	for v, want := range map[float64]string{16: "16", 256: "256", 1024: "1K", 65536: "64K", 1 << 20: "1M"} {
		if got := sizeLabel(v); got != want {
			t.Errorf("sizeLabel(%v) = %q, want %q", v, got, want)
		}
	}
	for n, want := range map[int]string{49152: "48 KiB", 1 << 20: "1 MiB", 100: "100 B"} {
		if got := bytesLabel(n); got != want {
			t.Errorf("bytesLabel(%d) = %q, want %q", n, got, want)
		}
	}
	ticks := pow2Ticks{label: sizeLabel, lowest: 4, step: 2}.Ticks(10, 100)
	var labels []string
	for _, tk := range ticks {
		labels = append(labels, tk.Label)
	}
	if strings.Join(labels, ",") != "16,,64" {
		t.Errorf("ticks %q, want 16, a minor tick at 32, 64", labels)
	}
}
